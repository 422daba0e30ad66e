"""Self-checks for the exercises of the chapter on autoencoders.

Each check builds the PyTorch layers itself (torch is imported inside the check, so
that importing the register does not import torch) and measures what the formulas of
the answer predict: parameter counts, output shapes, the matrix of a convolution.
"""

from ._answers import array_answer, call, number_answer, require
from ._registry import exercise

_RNG_SEED = 20261127


def _integer(value, name):
    number = number_answer(value, name=name)
    require(number == int(number), f"`{name}` should be a whole number; it is {number}")
    return int(number)


def _parameters(module):
    return sum(p.numel() for p in module.parameters())


@exercise(
    "ex-ae-conv-parameters",
    answers=["conv_layer_counts"],
    produce=(
        "a function `conv_layer_counts(n_in, n_out, k, H, W)` that returns four "
        "numbers for a k x k convolution with stride 1, padding (k - 1)/2 and a bias "
        "per output map, from n_in maps of H x W pixels to n_out maps: its parameters, "
        "the rows and the columns of its matrix, and the entries of that matrix that "
        "can be non-zero"
    ),
    practises="a convolution as a structured sparse matrix; weight sharing",
    minutes=25,
)
def _conv_parameters(function):
    """Against torch's Conv2d: its parameters, and its matrix, column by column."""
    import torch

    torch.manual_seed(_RNG_SEED % 2**31)
    for n_in, n_out, k, H, W in ((2, 3, 3, 6, 7), (1, 2, 5, 7, 6), (3, 1, 3, 4, 9)):
        got = array_answer(
            call(function, n_in, n_out, k, H, W, name="conv_layer_counts"),
            name="conv_layer_counts(n_in, n_out, k, H, W)",
            shape=(4,),
        )
        layer = torch.nn.Conv2d(n_in, n_out, k, padding=(k - 1) // 2).double()
        with torch.no_grad():
            # column j of the matrix: the layer, without bias, on the j-th unit input
            units = torch.eye(n_in * H * W, dtype=torch.float64).reshape(-1, n_in, H, W)
            matrix = (
                (layer(units) - layer.bias[:, None, None]).reshape(len(units), -1).T
            )
        setting = f"{n_in} -> {n_out} maps of {H} x {W}, k = {k}"
        require(
            got[0] == _parameters(layer),
            f"for {setting} your layer has {got[0]:g} parameters, PyTorch's "
            f"{_parameters(layer)}: count the kernels and the biases",
        )
        require(
            tuple(got[1:3]) == matrix.shape,
            f"for {setting} your matrix is {got[1]:g} x {got[2]:g}, not the shape of "
            "the map from the stacked input maps to the stacked output maps "
            "(rows: outputs)",
        )
        nonzero = int(torch.count_nonzero(matrix))
        require(
            got[3] == nonzero,
            f"for {setting} your count of non-zero entries is {got[3]:g}, "
            + ("more" if got[3] > nonzero else "fewer")
            + " than the layer's matrix has: how many kernel entries reach inside "
            "the image near its border, and how many blocks are there?",
        )


@exercise(
    "ex-ae-conv-shapes",
    answers=["conv_size", "transposed_size"],
    produce=(
        "a function `conv_size(H, k, s, pad)`, the output size of a convolution or "
        "pooling of kernel k, stride s and padding pad on H pixels, and a function "
        "`transposed_size(n, k, s, pad, r)`, the output size of a transposed "
        "convolution on n pixels with output padding r"
    ),
    practises="the size formulas of convolutions, pooling and transposed convolutions",
    minutes=15,
)
def _conv_shapes(conv, transposed):
    """Against the shapes that torch's Conv1d, MaxPool1d and ConvTranspose1d give."""
    import torch

    cases = ((32, 3, 1, 1), (32, 2, 2, 0), (15, 2, 2, 0), (17, 5, 3, 2), (9, 4, 2, 1))
    for H, k, s, pad in cases:
        got = _integer(call(conv, H, k, s, pad, name="conv_size"), "conv_size")
        x = torch.zeros(1, 1, H)
        sizes = {
            "convolution": torch.nn.Conv1d(1, 1, k, stride=s, padding=pad)(x).shape[-1],
            "pooling": torch.nn.MaxPool1d(k, stride=s, padding=min(pad, k // 2))(
                x
            ).shape[-1],
        }
        if pad > k // 2:  # PyTorch's pooling allows padding up to half the kernel
            del sizes["pooling"]
        for kind, want in sizes.items():
            require(
                got == want,
                f"for H = {H}, k = {k}, s = {s}, padding {pad} your size is {got}, "
                f"PyTorch's {kind} gives {want}: what does the stride divide, and is "
                "the division rounded up or down?",
            )
    for n, k, s, pad, r in ((8, 2, 2, 0, 0), (7, 3, 2, 1, 1), (5, 4, 3, 1, 2)):
        got = _integer(
            call(transposed, n, k, s, pad, r, name="transposed_size"),
            "transposed_size",
        )
        layer = torch.nn.ConvTranspose1d(
            1, 1, k, stride=s, padding=pad, output_padding=r
        )
        want = layer(torch.zeros(1, 1, n)).shape[-1]
        require(
            got == want,
            f"for n = {n}, k = {k}, s = {s}, padding {pad}, output padding {r} your "
            f"size is {got}, PyTorch's transposed convolution gives {want}: it is the "
            "size whose convolution gives n back, plus the output padding",
        )


@exercise(
    "ex-ae-lstm-parameters",
    answers=["lstm_count"],
    produce=(
        "a function `lstm_count(d, h)` that returns the number of parameters of a "
        "PyTorch LSTM layer with input size d and hidden size h"
    ),
    practises="what an LSTM layer learns; parameters that do not grow with length",
    minutes=10,
)
def _lstm_parameters(function):
    """Against torch's LSTM for several input and hidden sizes."""
    import torch

    for d, h in ((1, 32), (2, 32), (5, 3), (7, 1)):
        got = _integer(call(function, d, h, name="lstm_count"), "lstm_count")
        want = _parameters(torch.nn.LSTM(d, h))
        require(
            got == want,
            f"for d = {d}, h = {h} your count is {got}, PyTorch's LSTM has {want}: "
            "how many gates, and which matrices and biases does each have?",
        )
