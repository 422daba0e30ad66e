"""Autoencoders in PyTorch, and convolution written as a matrix; see
book/10_autoencoders.

The only module of dr_lib that imports torch (``import dr_lib`` does not load it). It
holds

- :func:`conv2d_as_matrix`: the matrix of a 2-D convolution with stride and padding, so
  that a convolution is ``y = A vec(X)`` and a transposed convolution ``A^T y`` ([T]
  §10.2);
- the models, as ``torch.nn.Module`` classes with ``encode`` and ``decode``:
  :class:`DenseAutoencoder` ([T] §10.8's fully connected network),
  :class:`LinearAutoencoder`, :class:`ConvAutoencoder` (a working version of [T] §10.8's
  convolutional network) and :class:`LSTMAutoencoder` ([T] §10.2, item 3);
- the objective [T] (10-9) with its regularisers (:func:`objective`), the corruptions of
  a denoising autoencoder, one training loop (:func:`train_autoencoder`) and greedy
  layer-wise pretraining of a stacked autoencoder (:func:`pretrain_greedily`);
- :class:`Autoencoder`, a scikit-learn estimator over the dense, linear and
  convolutional models, so that autoencoders sit in the same tables as every other
  method.

Data are NumPy arrays with one sample per row, as everywhere in dr_lib; the models
compute in float32. Every random choice (initial weights, mini-batches, noise) comes
from a seed, and a fit uses at most the cores this process may run on.
"""

import math
import time
from contextlib import contextmanager

import numpy as np
import torch
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted
from torch import nn
from torch.utils.data import DataLoader, Sampler, TensorDataset
from tqdm import tqdm

from dr_lib._validation import (
    check_array,
    check_array_nd,
    check_batch,
    check_image_shape,
    check_in,
    check_int_pair,
    check_integer,
    check_interval,
    check_kernel,
    check_layer_sizes,
    check_n_features,
    check_positive,
    check_same_shape,
    check_solver,
    check_transform_input,
    check_unit_range,
    check_unused,
)

__all__ = [
    "conv2d_output_shape",
    "conv2d_as_matrix",
    "DenseAutoencoder",
    "LinearAutoencoder",
    "ConvAutoencoder",
    "LSTMAutoencoder",
    "seeded",
    "objective",
    "gaussian_noise",
    "masking_noise",
    "train_autoencoder",
    "pretrain_greedily",
    "encode",
    "decode",
    "reconstruct",
    "Autoencoder",
    "KINDS",
    "SOLVERS",
    "TORCH_THREADS",
]

#: The models the estimator can train.
KINDS = ("dense", "conv", "linear")

#: The optimisers of the estimator; "auto" picks one by the kind of model.
SOLVERS = ("auto", "adam", "als")

#: The estimator's epochs or iterations when ``max_epochs`` is None, per solver.
_DEFAULT_PASSES = {"adam": 50, "als": 1000}

#: Rows per forward pass when encoding or decoding a whole data set.
_CHUNK = 2048

# -------------------------------------------------------------- convolution as a matrix


def conv2d_output_shape(kernel_shape, input_shape, stride=1, padding=0):
    """Height and width of a 2-D convolution's output, as
    ``torch.nn.functional.conv2d``.

    ``out = floor((in + 2 padding - k) / stride) + 1`` along each axis.

    Returns
    -------
    tuple of two int
    """
    k_h, k_w = check_int_pair(kernel_shape, name="kernel_shape")
    in_h, in_w = check_int_pair(input_shape, name="input_shape")
    s_h, s_w = check_int_pair(stride, name="stride")
    p_h, p_w = check_int_pair(padding, name="padding", low=0)
    if k_h > in_h + 2 * p_h or k_w > in_w + 2 * p_w:
        raise ValueError(
            f"the kernel ({k_h}x{k_w}) is larger than the padded input "
            f"({in_h + 2 * p_h}x{in_w + 2 * p_w}); pass a larger input_shape or "
            "padding, or a smaller kernel."
        )
    return (in_h + 2 * p_h - k_h) // s_h + 1, (in_w + 2 * p_w - k_w) // s_w + 1


def conv2d_as_matrix(kernel, input_shape, stride=1, padding=0):
    """The matrix ``A`` with ``vec(conv2d(X, kernel)) = A vec(X)`` ([T] §10.2).

    ``vec`` stacks the rows of an image, as [T] does (``x_{1,1}, x_{1,2}, ...``; NumPy's
    ``ravel``). The convolution is the one of deep learning
    (``torch.nn.functional.conv2d``, a cross-correlation: the kernel is not flipped).
    Output pixel ``(r, c)`` reads input pixel ``(r s_h + p - pad_h, c s_w + q - pad_w)``
    with weight ``kernel[p, q]``; pixels of the zero padding contribute nothing, so they
    have no column. The transposed convolution (``conv_transpose2d``) is ``A.T``.
    Derived and checked in book/10_autoencoders.

    Parameters
    ----------
    kernel : array-like of shape (k_h, k_w)
        Numbers, or symbols (a ``sympy.Matrix`` or an object array): the matrix then
        holds the symbols, for exact comparisons.
    input_shape : int or (int, int)
        Height and width of the input image.
    stride, padding : int or (int, int), default=1 and 0

    Returns
    -------
    ndarray of shape (out_h * out_w, in_h * in_w)
        float64 for a numeric kernel, object (symbols and zeros) for a symbolic one.
    """
    kernel = check_kernel(kernel)
    in_h, in_w = check_int_pair(input_shape, name="input_shape")
    out_h, out_w = conv2d_output_shape(kernel.shape, (in_h, in_w), stride, padding)
    (s_h, s_w), (p_h, p_w) = (
        check_int_pair(stride, name="stride"),
        check_int_pair(padding, name="padding", low=0),
    )
    A = np.zeros((out_h * out_w, in_h * in_w), dtype=kernel.dtype)
    for r, c, p, q in np.ndindex(out_h, out_w, *kernel.shape):
        i, j = r * s_h + p - p_h, c * s_w + q - p_w
        if 0 <= i < in_h and 0 <= j < in_w:
            A[r * out_w + c, i * in_w + j] = kernel[p, q]
    return A


# -------------------------------------------------------------------------- the models


class _Autoencoder(nn.Module):
    """An encoder ``g`` and a decoder ``f`` ([T] (10-9)): ``x̂ = f(g(x))``."""

    def encode(self, x):
        """The code ``z = g(x)``."""
        return self.encoder(x)

    def decode(self, z):
        """The reconstruction ``x̂ = f(z)``."""
        return self.decoder(z)

    def forward(self, x):
        return self.decode(self.encode(x))


def _perceptron(sizes, *, bias=True):
    """Linear layers between consecutive ``sizes``, with a ReLU between two of them."""
    layers = []
    for k, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers += [nn.ReLU()] if k else []
        layers.append(nn.Linear(n_in, n_out, bias=bias))
    return layers


class DenseAutoencoder(_Autoencoder):
    """Fully connected autoencoder, ``D → hidden → D' → reversed hidden → D``.

    With the defaults and ``n_features=784`` this is the network of [T] §10.8's first
    listing (784-128-64-32-64-128-784, ReLU between layers, a sigmoid on the output).
    See book/10_autoencoders.

    Parameters
    ----------
    n_features : int
        D, the input size.
    code_size : int, default=32
        D', the size of the code.
    hidden : sequence of int, default=(128, 64)
        Sizes of the encoder's hidden layers; the decoder mirrors them.
    output : {"sigmoid", "linear"}, default="sigmoid"
        The decoder's last activation; "sigmoid" keeps reconstructions in [0, 1].
    bias : bool, default=True
        Whether the layers have biases (without them, the data should be centred).
    """

    def __init__(
        self, n_features, code_size=32, hidden=(128, 64), output="sigmoid", bias=True
    ):
        super().__init__()
        sizes = [
            check_integer(n_features, name="n_features"),
            *check_layer_sizes(hidden, name="hidden"),
            check_integer(code_size, name="code_size"),
        ]
        decoder = _perceptron(sizes[::-1], bias=bias)
        if check_in(output, ("sigmoid", "linear"), name="output") == "sigmoid":
            decoder.append(nn.Sigmoid())
        self.encoder = nn.Sequential(*_perceptron(sizes, bias=bias))
        self.decoder = nn.Sequential(*decoder)


class LinearAutoencoder(DenseAutoencoder):
    """Linear autoencoder ``x̂ = F G x`` (plus biases): one linear map each way.

    With squared loss its optimum spans the top-D' principal subspace (Baldi and
    Hornik), proved and checked in book/10_autoencoders. ``encoder[0].weight`` is ``G``
    (D' x D), ``decoder[0].weight`` is ``F`` (D x D').
    """

    def __init__(self, n_features, code_size, bias=True):
        super().__init__(n_features, code_size, hidden=(), output="linear", bias=bias)


class ConvAutoencoder(_Autoencoder):
    """Convolutional autoencoder for one-channel images given as flattened rows.

    The encoder is [T] §10.8's second listing: two blocks of 3x3 convolution (padding
    1), ReLU and 2x2 max pooling, with ``channels`` feature maps (16 then 4 in [T]; a
    28x28 image becomes 4 maps of 7x7). A linear layer then maps those
    ``channels[-1] h w / 16`` numbers to a code of ``code_size`` (omit it with
    ``code_size=None``: the code is then the maps themselves). The decoder mirrors the
    encoder: a linear layer back to the maps, then two upsampling steps, by transposed
    2x2 convolutions with stride 2 (``upsampling="transposed"``) or by nearest-neighbour
    upsampling followed by a 3x3 convolution (``"nearest"``), and a sigmoid. See
    book/10_autoencoders.

    Parameters
    ----------
    image_shape : (int, int), default=(28, 28)
        Height and width, both multiples of 4.
    code_size : int or None, default=32
    channels : (int, int), default=(16, 4)
    upsampling : {"transposed", "nearest"}, default="transposed"
    """

    def __init__(
        self,
        image_shape=(28, 28),
        code_size=32,
        channels=(16, 4),
        upsampling="transposed",
    ):
        super().__init__()
        height, width = check_int_pair(image_shape, name="image_shape")
        self.image_shape = check_image_shape(
            (height, width), height * width, multiple_of=4
        )
        c1, c2 = check_int_pair(channels, name="channels")
        maps = (c2, height // 4, width // 4)
        bottleneck, unbottleneck = [], []
        if code_size is not None:
            code_size = check_integer(code_size, name="code_size")
            bottleneck = [nn.Linear(math.prod(maps), code_size)]
            unbottleneck = [nn.Linear(code_size, math.prod(maps)), nn.ReLU()]
        self.encoder = nn.Sequential(
            nn.Unflatten(1, (1, height, width)),
            nn.Conv2d(1, c1, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2, 2),
            nn.Conv2d(c1, c2, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2, 2),
            nn.Flatten(),
            *bottleneck,
        )
        upsample = {"transposed": _transposed_steps, "nearest": _nearest_steps}[
            check_in(upsampling, ("transposed", "nearest"), name="upsampling")
        ]
        self.decoder = nn.Sequential(
            *unbottleneck,
            nn.Unflatten(1, maps),
            *upsample(c2, c1),
            nn.Sigmoid(),
            nn.Flatten(),
        )


def _transposed_steps(c2, c1):
    """Double the resolution twice with 2x2 transposed convolutions of stride 2."""
    return [
        nn.ConvTranspose2d(c2, c1, 2, stride=2),
        nn.ReLU(),
        nn.ConvTranspose2d(c1, 1, 2, stride=2),
    ]


def _nearest_steps(c2, c1):
    """Double the resolution twice by repeating pixels, each time followed by a 3x3
    conv."""
    return [
        nn.Upsample(scale_factor=2, mode="nearest"),
        nn.Conv2d(c2, c1, 3, padding=1),
        nn.ReLU(),
        nn.Upsample(scale_factor=2, mode="nearest"),
        nn.Conv2d(c1, 1, 3, padding=1),
    ]


class LSTMAutoencoder(_Autoencoder):
    """LSTM autoencoder with a repeated code ([T] §10.2, item 3).

    An LSTM reads the sequence; a linear layer turns its last hidden state into the
    code. The decoder repeats the code at each of the ``n_steps`` time steps, runs a
    second LSTM over that constant sequence and maps each hidden state to an output
    step. Unlike the sequence-to-sequence models of translation (Sutskever et al.,
    2014), the decoder neither starts from the encoder's state nor reads its own
    previous outputs: the code is all it sees, at every step, and the output has the
    input's length.

    Parameters
    ----------
    n_steps : int
        T, the length of the sequences (the decoder always produces T steps).
    n_features : int, default=1
        Values per time step.
    hidden_size : int, default=32
    code_size : int, default=4
    """

    def __init__(self, n_steps, n_features=1, hidden_size=32, code_size=4):
        super().__init__()
        self.n_steps = check_integer(n_steps, name="n_steps")
        n_features = check_integer(n_features, name="n_features")
        hidden_size = check_integer(hidden_size, name="hidden_size")
        code_size = check_integer(code_size, name="code_size")
        self.reader = nn.LSTM(n_features, hidden_size, batch_first=True)
        self.to_code = nn.Linear(hidden_size, code_size)
        self.writer = nn.LSTM(code_size, hidden_size, batch_first=True)
        self.to_output = nn.Linear(hidden_size, n_features)

    def encode(self, x):
        """Code of sequences ``x`` of shape (n, T, n_features): shape (n, code_size)."""
        _, (last_hidden, _) = self.reader(x)
        return self.to_code(last_hidden[-1])

    def decode(self, z):
        """Sequences of shape (n, T, n_features) from codes of shape (n, code_size)."""
        repeated = z.unsqueeze(1).expand(-1, self.n_steps, -1)
        hidden, _ = self.writer(repeated)
        return self.to_output(hidden)


# ----------------------------------------------------------------------- seeds, threads


#: torch threads used while training or encoding. The mini-batches are small (64 rows of
#: 784 numbers), so a second thread gains little, and on a machine shared with other
#: jobs OpenMP's waiting threads can make two threads twenty times slower than one
#: (measured in book/10_autoencoders). One thread is never more than the machine has.
TORCH_THREADS = 1


@contextmanager
def _torch_settings():
    """Deterministic algorithms and :data:`TORCH_THREADS` threads, restored on exit."""
    threads = torch.get_num_threads()
    deterministic = torch.are_deterministic_algorithms_enabled()
    torch.set_num_threads(TORCH_THREADS)
    torch.use_deterministic_algorithms(True)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(deterministic)
        torch.set_num_threads(threads)


@contextmanager
def seeded(seed):
    """Run a block with torch seeded, deterministic, and on :data:`TORCH_THREADS`
    threads.

    Inside the block torch's global random generator is seeded with ``seed`` (so that a
    model built there gets the same initial weights every time), deterministic
    algorithms are required and torch uses :data:`TORCH_THREADS` thread(s). On exit the
    generator's state, the deterministic flag and the thread count are restored.

    Parameters
    ----------
    seed : int
        A non-negative integer.
    """
    seed = check_integer(seed, name="seed", low=0)
    with _torch_settings(), torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        yield


# --------------------------------------------------------------- objective and training


def _weight_tensors(model):
    """The weight matrices and kernels of ``model`` (parameters with >= 2 axes): no
    biases."""
    return [p for p in model.parameters() if p.ndim >= 2]


def objective(model, x_in, target, *, code_l1=0.0, weight_l1=0.0, weight_l2=0.0):
    """The autoencoder objective [T] (10-9), per entry, with its three regularisers.

    ``J = mean_{i,p} (x_{p,i} - x̂_{p,i})^2 + R`` with
    ``R = code_l1 mean_i ||z_i||_1 + weight_l1 sum_W ||W||_1
    + weight_l2 sum_W ||W||_F^2``,
    where ``z_i = g(x̃_i)`` is the code of the (possibly corrupted) input,
    ``x̂_i = f(z_i)`` and the sums run over the weight matrices and kernels (not the
    biases). Dividing (10-9)'s sum of squares by the N D entries changes no minimiser;
    the mean keeps the same learning rate good for any N and D.

    Parameters
    ----------
    model : an autoencoder of this module (anything with ``encode`` and ``decode``)
    x_in, target : torch.Tensor
        The input (corrupted, for a denoising autoencoder) and the clean data to
        rebuild.
    code_l1 : float, default=0.0
        Weight of the sparsity penalty on the codes ([T]'s sparse autoencoder).
    weight_l1, weight_l2 : float, default=0.0
        Weights of the L1 and squared-L2 penalties on the weights.

    Returns
    -------
    J, mse : torch.Tensor
        The objective and its reconstruction term (scalars).
    """
    codes = model.encode(x_in)
    mse = torch.mean((model.decode(codes) - target) ** 2)
    penalty = mse.new_zeros(())
    if code_l1:
        penalty = penalty + code_l1 * codes.abs().sum(dim=1).mean()
    if weight_l1:
        penalty = penalty + weight_l1 * sum(
            w.abs().sum() for w in _weight_tensors(model)
        )
    if weight_l2:
        penalty = penalty + weight_l2 * sum(
            (w**2).sum() for w in _weight_tensors(model)
        )
    return mse + penalty, mse


def gaussian_noise(std):
    """Corruption of a denoising autoencoder: add N(0, std²) noise to every entry.

    Returns
    -------
    callable ``(x, generator) -> x̃``
        The noise has ``x``'s dtype and device; ``generator`` must live on that device.
    """
    std = check_positive(std, name="std")

    def corrupt(x, generator):
        noise = torch.randn(
            x.shape, generator=generator, dtype=x.dtype, device=x.device
        )
        return x + std * noise

    return corrupt


def masking_noise(fraction):
    """Corruption of a denoising autoencoder: set a random ``fraction`` of entries to 0.

    Each entry is dropped independently with probability ``fraction`` (Vincent et al.'s
    masking noise; [T] §10.2 "randomly drop input features").

    Returns
    -------
    callable ``(x, generator) -> x̃``
        The draws have ``x``'s dtype and device; ``generator`` must live on that device.
    """
    fraction = check_positive(fraction, name="fraction")
    fraction = float(check_interval(fraction, 0.0, 1.0, name="fraction"))

    def corrupt(x, generator):
        draws = torch.rand(x.shape, generator=generator, dtype=x.dtype, device=x.device)
        return x * (draws >= fraction)

    return corrupt


def _as_tensor(X, model=None):
    """A validated NumPy array as a tensor of ``model``'s dtype and on its device.

    float32 on the CPU when ``model`` is None or has no parameters.
    """
    first = None if model is None else next(model.parameters(), None)
    dtype, device = (
        (torch.float32, None) if first is None else (first.dtype, first.device)
    )
    return torch.as_tensor(np.ascontiguousarray(X), dtype=dtype, device=device)


def _to_numpy(tensor):
    """A tensor on any device as a float64 NumPy array."""
    return tensor.detach().cpu().double().numpy()


@contextmanager
def _mode(model, training):
    """Run a block with every module of ``model`` in training (or eval) mode.

    On exit each module gets back the mode it had, so that a helper of this module never
    leaves the caller's model in a mode the caller did not choose.
    """
    modes = [(module, module.training) for module in model.modules()]
    model.train(training)
    try:
        yield
    finally:
        for module, training_before in modes:
            module.training = training_before


def _seed_from(random_state):
    """A non-negative int seed drawn from ``random_state`` (None, int or
    RandomState)."""
    return int(check_random_state(random_state).randint(np.iinfo(np.int32).max))


def train_autoencoder(
    model,
    X,
    *,
    target=None,
    X_val=None,
    max_epochs=50,
    batch_size=64,
    lr=1e-3,
    corruption=None,
    code_l1=0.0,
    weight_l1=0.0,
    weight_l2=0.0,
    random_state=None,
    verbose=False,
):
    """Minimise :func:`objective` over ``model``'s parameters with Adam on mini-batches.

    Each epoch visits the samples once in a random order, in batches of ``batch_size``
    served by a ``torch.utils.data.DataLoader``; a denoising autoencoder corrupts each
    batch afresh with ``corruption`` and rebuilds the clean ``target``. The order and
    the noise come from ``random_state``; the initial weights are the model's (build it
    inside :func:`seeded` to fix them). The data go to the model's device and dtype. The
    model trains in training mode and gets its own modes back at the end.

    Parameters
    ----------
    model : an autoencoder of this module
    X : array-like of shape (n_samples, n_features) or (n_samples, n_steps, \
n_features), or DataLoader
        The training data; or a DataLoader of your own, whose batches are input tensors
        or (input, target) pairs (then ``target`` and ``batch_size`` do not apply, and
        the loader decides the order).
    target : array-like of the same shape, optional
        What to reconstruct; ``X`` itself by default.
    X_val : array-like, optional
        Held-out data: its reconstruction MSE is recorded after every epoch.
    max_epochs, batch_size : int, default=50 and 64
    lr : float, default=1e-3
        Adam's learning rate.
    corruption : callable, optional
        :func:`gaussian_noise` or :func:`masking_noise`; None for a plain autoencoder.
    code_l1, weight_l1, weight_l2 : float, default=0.0
        Regularisers, see :func:`objective`.
    random_state : int, RandomState or None
    verbose : bool, default=False
        Show a text progress bar.

    Returns
    -------
    dict of lists, one entry per epoch
        ``loss`` (the objective, averaged over the epoch's samples), ``mse`` (its
        reconstruction term), ``val_mse`` (only with ``X_val``), ``seconds`` and
        ``cpu_seconds`` (wall and CPU time of the epoch).
    """
    settings = {
        "max_epochs": check_integer(max_epochs, name="max_epochs"),
        "lr": check_positive(lr, name="lr"),
        "code_l1": check_positive(code_l1, name="code_l1", strict=False),
        "weight_l1": check_positive(weight_l1, name="weight_l1", strict=False),
        "weight_l2": check_positive(weight_l2, name="weight_l2", strict=False),
    }
    batch_size = check_integer(batch_size, name="batch_size")
    if isinstance(X, DataLoader):
        check_unused(target, name="target", because="with a DataLoader of batches")
        inputs = targets = None
    else:
        inputs = check_array_nd(X)
        targets = inputs if target is None else check_array_nd(target, name="target")
        check_same_shape(targets, inputs, name="target")
    x_val = None if X_val is None else check_array_nd(X_val, name="X_val")
    x_val = None if x_val is None else _as_tensor(x_val, model)
    seed = _seed_from(random_state)
    with seeded(seed):
        if inputs is None:
            batches, order = X, None
        else:
            batches, order = _shuffled_loader(
                _as_tensor(inputs, model), _as_tensor(targets, model), batch_size, seed
            )
        return _fit_module(
            model,
            batches,
            x_val,
            corruption=corruption,
            noise=_noise_generator(model, order, seed),
            verbose=verbose,
            **settings,
        )


class _ShuffledBatches(Sampler):
    """The index batches of one pass over ``n`` samples in an order drawn from
    ``generator``."""

    def __init__(self, n, batch_size, generator):
        self.n, self.batch_size, self.generator = n, batch_size, generator

    def __iter__(self):
        yield from torch.randperm(self.n, generator=self.generator).split(
            self.batch_size
        )

    def __len__(self):
        return math.ceil(self.n / self.batch_size)


def _shuffled_loader(x, target, batch_size, seed):
    """A DataLoader of (input, target) batches of two tensors, in a seeded order.

    Returns the loader and the CPU generator that draws its order.
    """
    order = torch.Generator().manual_seed(seed)
    loader = DataLoader(
        TensorDataset(x, target),
        sampler=_ShuffledBatches(len(x), batch_size, order),
        batch_size=None,  # the sampler hands out whole batches of indices
        generator=torch.Generator().manual_seed(seed),  # for DataLoader's own draw
    )
    return loader, order


def _noise_generator(model, order, seed):
    """The generator of the corruptions: on the model's device, seeded from ``seed``.

    On the CPU it is the generator of the batch order itself, as it always was here, so
    that the order and the noise form one reproducible stream.
    """
    first = next(model.parameters(), None)
    device = torch.device("cpu") if first is None else first.device
    if device.type == "cpu" and order is not None:
        return order
    return torch.Generator(device=device).manual_seed(seed)


def _batch_pair(batch, model):
    """(input, target) of one batch, on the model's device: a tensor is its own
    target."""
    x_in, target = check_batch(batch)
    first = next(model.parameters())
    return (
        x_in.to(device=first.device, dtype=first.dtype),
        target.to(device=first.device, dtype=first.dtype),
    )


def _fit_module(
    model,
    batches,
    x_val,
    *,
    max_epochs,
    lr,
    corruption,
    code_l1,
    weight_l1,
    weight_l2,
    noise,
    verbose,
):
    """The training loop of :func:`train_autoencoder`: Adam over a DataLoader's
    batches."""
    optimiser = torch.optim.Adam(model.parameters(), lr=lr)
    history = {"loss": [], "mse": [], "seconds": [], "cpu_seconds": []}
    if x_val is not None:
        history["val_mse"] = []
    epochs = tqdm(range(max_epochs), desc="epochs", disable=not verbose)
    with _mode(model, training=True):
        for _ in epochs:
            wall, cpu = time.perf_counter(), time.process_time()
            totals, count = torch.zeros(2), 0
            for batch in batches:
                x_in, target = _batch_pair(batch, model)
                if corruption is not None:
                    x_in = corruption(x_in, noise)
                loss, mse = objective(
                    model,
                    x_in,
                    target,
                    code_l1=code_l1,
                    weight_l1=weight_l1,
                    weight_l2=weight_l2,
                )
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
                totals += len(x_in) * torch.stack([loss.detach(), mse.detach()]).cpu()
                count += len(x_in)
            history["loss"].append(float(totals[0]) / count)
            history["mse"].append(float(totals[1]) / count)
            if x_val is not None:
                error = _reconstruct_tensor(model, x_val) - x_val.double()
                history["val_mse"].append(float(torch.mean(error**2)))
            history["seconds"].append(time.perf_counter() - wall)
            history["cpu_seconds"].append(time.process_time() - cpu)
            epochs.set_postfix(loss=f"{history['loss'][-1]:.4g}")
    return history


def _fit_als(model, X, *, max_epochs, tol, verbose):
    """Alternating least squares for a :class:`LinearAutoencoder` on centred rows ``X``.

    Block coordinate descent on (10-9) with linear maps: the best encoder for the
    decoder, ``G = F^+`` (Step 1 of the proof of Baldi and Hornik's theorem in
    book/10_autoencoders), then the best decoder for its codes ``Z = X G^T``, ``F`` by
    least squares. Each half-step minimises J exactly over one block, so J never rises;
    from almost every start the iteration converges to PCA's subspace, at the rate
    ``lambda_{D'+1} / lambda_{D'}`` per iteration (it is Roweis's EM algorithm for PCA
    without noise). Both least-squares problems see the data only through ``R`` of
    ``X = Q R`` (``||X - X G^T F^T|| = ||R - R G^T F^T||``), so after one QR
    decomposition an iteration costs ``O(D^2 D')`` whatever the number of samples. It
    starts from the model's decoder weights, stops when an iteration lowers J by less
    than ``tol`` times J, and writes ``F`` and ``G = F^+`` into the model, with zero
    biases (the data are centred). Computed by torch in float64, on the threads of
    :func:`seeded`.
    """
    R = torch.linalg.qr(torch.as_tensor(X, dtype=torch.float64), mode="r").R
    F = model.decoder[0].weight.detach().to(dtype=torch.float64, device="cpu")
    history = {"loss": [], "mse": [], "seconds": [], "cpu_seconds": []}
    for _ in tqdm(range(max_epochs), desc="iterations", disable=not verbose):
        wall, cpu = time.perf_counter(), time.process_time()
        codes = R @ torch.linalg.pinv(F).T
        F = torch.linalg.lstsq(codes.T @ codes, codes.T @ R).solution.T
        J = float(torch.sum((R - codes @ F.T) ** 2)) / X.size
        converged = bool(history["loss"]) and history["loss"][-1] - J <= tol * J
        history["loss"].append(J)
        history["mse"].append(J)
        history["seconds"].append(time.perf_counter() - wall)
        history["cpu_seconds"].append(time.process_time() - cpu)
        if converged:
            break
    with torch.no_grad():
        for layer, weight in [
            (model.decoder[0], F),
            (model.encoder[0], torch.linalg.pinv(F)),
        ]:
            layer.weight.copy_(weight)
            if layer.bias is not None:
                layer.bias.zero_()
    return history


def _layer_blocks(sequential):
    """``sequential`` cut before each linear layer: blocks (layer, its activations)."""
    blocks = []
    for module in sequential:
        if isinstance(module, nn.Linear):
            blocks.append([])
        blocks[-1].append(module)
    return [nn.Sequential(*block) for block in blocks]


class _ShallowStage(_Autoencoder):
    """One stage of greedy pretraining: an encoder block and its mirror decoder block.

    The blocks are the deep network's own modules (not copies), so training the stage
    trains those layers of the deep network in place.
    """

    def __init__(self, encoder, decoder):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder


def pretrain_greedily(
    model,
    X,
    *,
    max_epochs=5,
    batch_size=64,
    lr=1e-3,
    random_state=None,
    verbose=False,
):
    """Greedy layer-wise pretraining of a stacked autoencoder ([T] §10.2, figure 10-4).

    Stage ``k`` trains a shallow autoencoder made of the deep network's ``k``-th encoder
    layer and the decoder layer that mirrors it (each with the activation that follows
    it in the deep network) to reconstruct its input ``h_{k-1}`` (``h_0 = x``); then the
    stage's codes ``h_k`` become the next stage's data. Earlier layers stay fixed. The
    layers are trained in place, so that ``model`` ends ready for end-to-end fine-tuning
    with :func:`train_autoencoder`, each module in the mode it had. The decoder layers
    are trained, not tied to the transposed encoder weights (tying them, as Hinton and
    Salakhutdinov did, is optional in [T]).

    Parameters
    ----------
    model : DenseAutoencoder (or LinearAutoencoder)
        Built inside :func:`seeded` to fix its initial weights.
    X : array-like of shape (n_samples, n_features)
    max_epochs, batch_size, lr : as in :func:`train_autoencoder`, for every stage
    random_state : int, RandomState or None
        Source of each stage's batch order.
    verbose : bool, default=False
        Show a text progress bar per stage.

    Returns
    -------
    list of dict
        The :func:`train_autoencoder` history of each stage, outermost stage first.
    """
    h = check_array(X)
    seeds = check_random_state(random_state)
    stages = zip(_layer_blocks(model.encoder), _layer_blocks(model.decoder)[::-1])
    histories = []
    for encoder, decoder in stages:
        stage = _ShallowStage(encoder, decoder)
        histories.append(
            train_autoencoder(
                stage,
                h,
                max_epochs=max_epochs,
                batch_size=batch_size,
                lr=lr,
                random_state=_seed_from(seeds),
                verbose=verbose,
            )
        )
        h = _to_numpy(_encode_tensor(stage, _as_tensor(h, stage)))
    return histories


# ------------------------------------------------------------- using a trained model


def _in_chunks(model, function, x):
    """``function`` (``model`` or one of its methods) applied to ``x`` in chunks of
    rows.

    In eval mode (each module's mode is restored afterwards) and without gradients; the
    result is float64, on ``x``'s device.
    """
    with _mode(model, training=False), torch.no_grad():
        return torch.cat([function(chunk) for chunk in x.split(_CHUNK)]).double()


def _encode_tensor(model, x):
    return _in_chunks(model, model.encode, x)


def _decode_tensor(model, z):
    return _in_chunks(model, model.decode, z)


def _reconstruct_tensor(model, x):
    return _in_chunks(model, model, x)


def encode(model, X):
    """Codes ``z_i = g(x_i)`` of the samples ``X`` (no gradients), as float64 NumPy.

    The model runs in eval mode, and every module gets its own mode back afterwards.
    """
    return _to_numpy(_encode_tensor(model, _as_tensor(check_array_nd(X), model)))


def decode(model, Z):
    """Reconstructions ``f(z_i)`` from codes ``Z`` of shape (n, code_size), as
    :func:`encode`."""
    return _to_numpy(_decode_tensor(model, _as_tensor(check_array(Z, name="Z"), model)))


def reconstruct(model, X):
    """Reconstructions ``x̂_i = f(g(x_i))`` of the samples ``X``, as :func:`encode`."""
    return _to_numpy(_reconstruct_tensor(model, _as_tensor(check_array_nd(X), model)))


# ----------------------------------------------------------------------- the estimator


class Autoencoder(TransformerMixin, BaseEstimator):
    """An autoencoder as a scikit-learn transformer: ``transform`` gives the codes.

    Trains one of the models of this module on ``X`` (one sample per row) by minimising
    [T] (10-9) (:func:`objective`, no regulariser) and keeps it. The dense and
    convolutional models train with Adam on mini-batches; the linear model by
    alternating least squares (the best encoder for the decoder, then the best decoder
    for the codes) until the loss stops falling, which brings it to PCA's subspace
    (Baldi and Hornik) where mini-batch Adam, slowed by directions of small variance,
    stops short of it. See book/10_autoencoders.

    Parameters
    ----------
    kind : {"dense", "conv", "linear"}, default="dense"
        :class:`DenseAutoencoder` ([T] §10.8), :class:`ConvAutoencoder` (each row is an
        image of ``image_shape``) or :class:`LinearAutoencoder`.
    code_size : int, default=32
        D', the size of the code.
    hidden : sequence of int, default=(128, 64)
        Hidden layer sizes of the dense encoder (the decoder mirrors them).
    solver : {"auto", "adam", "als"}, default="auto"
        "adam": mini-batches of ``batch_size``, ``max_epochs`` epochs at learning rate
        ``lr`` (:func:`train_autoencoder`). "als", for ``kind="linear"`` only:
        alternating least squares, the best encoder for the decoder and the best decoder
        for the codes in turn, until the loss converges (``tol``) or after
        ``max_epochs`` iterations. "auto" is "als" for the linear model and "adam" for
        the others.
    max_epochs : int or None, default=None
        Epochs of Adam (None: 50), or iterations of alternating least squares (None:
        1000), each of which reads the data twice.
    batch_size : int, default=64
        Adam's mini-batch size.
    lr : float, default=1e-3
        Adam's learning rate.
    tol : float, default=1e-10
        Alternating least squares stops when an iteration lowers the loss by less than
        ``tol`` times the loss.
    noise : float, default=0.0
        Standard deviation of the Gaussian noise added to each training batch: a
        denoising autoencoder when positive (Adam only: the noise needs fresh draws per
        batch).
    image_shape : (int, int), default=(28, 28)
        For ``kind="conv"``: the (height, width) each row is reshaped to; both multiples
        of 4, with height x width = n_features.
    channels : (int, int), default=(16, 4)
        For ``kind="conv"``: the feature maps of the two convolutional blocks ([T]).
    upsampling : {"nearest", "transposed"}, default="nearest"
        For ``kind="conv"``: how the decoder doubles the resolution (see
        :class:`ConvAutoencoder`). "nearest" is the default because, on MNIST with
        [T]'s 4 channels, it learned faster per epoch than 2x2 transposed convolutions
        (measured in book/10_autoencoders, section on convolutional autoencoders).
    random_state : int, RandomState or None
        Fixes the initial weights, the mini-batches and the noise.
    verbose : bool, default=False
        Show a text progress bar over the epochs.

    Attributes
    ----------
    model_ : torch.nn.Module
        The trained network (``model_.encode``, ``model_.decode``), in eval mode.
    solver_ : str
        The solver used, "adam" or "als".
    history_ : ndarray of shape (n_iter_,)
        Training loss (mean squared error per entry, on the scaled data) of each epoch
        or iteration.
    epoch_seconds_ : ndarray of shape (n_iter_,)
        Wall time of each epoch or iteration.
    data_offset_ : float or ndarray of shape (n_features,)
    data_scale_ : float
        The network sees ``(X - data_offset_) / data_scale_`` and its reconstructions
        are mapped back. The linear model sees centred data scaled to a mean square of
        one (``data_offset_`` is the mean, as in PCA, and ``data_scale_`` the root mean
        square of the centred entries): its biases could learn the mean, but Adam moves
        them slowly, and with the scale Adam's learning rate suits data in any units.
        The dense and
        convolutional models end in a sigmoid, whose output lies in [0, 1]; data outside
        [0, 1] are rescaled by their minimum and range, with a warning (else ``0.0`` and
        ``1.0``).
    n_features_in_ : int
    n_iter_ : int
        Epochs or iterations run (fewer than ``max_epochs`` when the alternating least
        squares converged).

    Examples
    --------
    >>> import numpy as np
    >>> from dr_lib.autoencoders import Autoencoder
    >>> X = np.random.default_rng(0).uniform(size=(100, 20))
    >>> ae = Autoencoder(code_size=3, hidden=(8,), max_epochs=2, random_state=0)
    >>> ae.fit_transform(X).shape
    (100, 3)
    """

    def __init__(
        self,
        kind="dense",
        code_size=32,
        hidden=(128, 64),
        solver="auto",
        max_epochs=None,
        batch_size=64,
        lr=1e-3,
        tol=1e-10,
        noise=0.0,
        image_shape=(28, 28),
        channels=(16, 4),
        upsampling="nearest",
        random_state=None,
        verbose=False,
    ):
        self.kind = kind
        self.code_size = code_size
        self.hidden = hidden
        self.solver = solver
        self.max_epochs = max_epochs
        self.batch_size = batch_size
        self.lr = lr
        self.tol = tol
        self.noise = noise
        self.image_shape = image_shape
        self.channels = channels
        self.upsampling = upsampling
        self.random_state = random_state
        self.verbose = verbose

    def _build(self, n_features):
        """The untrained network for ``n_features`` inputs (validates the
        parameters)."""
        kind = check_in(self.kind, KINDS, name="kind")
        code_size = check_integer(self.code_size, name="code_size")
        if kind == "linear":
            return LinearAutoencoder(n_features, code_size)
        if kind == "dense":
            return DenseAutoencoder(n_features, code_size, hidden=self.hidden)
        shape = check_image_shape(self.image_shape, n_features, multiple_of=4)
        return ConvAutoencoder(
            shape, code_size, channels=self.channels, upsampling=self.upsampling
        )

    def _solver(self, kind, noise):
        """The solver of ``solver="auto"`` for ``kind``, or the one asked for."""
        solver = check_in(self.solver, SOLVERS, name="solver")
        if solver == "auto":
            solver = "als" if kind == "linear" else "adam"
        return check_solver(solver, kind, noise)

    def fit(self, X, y=None):
        """Train the autoencoder on ``X`` of shape (n_samples, n_features); ``y`` is
        ignored.

        Returns ``self``.
        """
        X = check_array(X)
        kind = check_in(self.kind, KINDS, name="kind")
        noise = check_positive(self.noise, name="noise", strict=False)
        solver = self._solver(kind, noise)
        max_epochs = self.max_epochs
        if max_epochs is None:
            max_epochs = _DEFAULT_PASSES[solver]
        max_epochs = check_integer(max_epochs, name="max_epochs")
        if kind == "linear":
            self.data_offset_ = X.mean(axis=0)
            self.data_scale_ = _root_mean_square(X - self.data_offset_)
        else:
            self.data_offset_, self.data_scale_ = check_unit_range(
                X, why=f"the {self.kind} autoencoder's sigmoid output lies in [0, 1]"
            )
        seed = _seed_from(self.random_state)
        with seeded(seed):
            self.model_ = self._build(X.shape[1])
            if solver == "als":
                history = _fit_als(
                    self.model_,
                    (X - self.data_offset_) / self.data_scale_,
                    max_epochs=max_epochs,
                    tol=check_positive(self.tol, name="tol"),
                    verbose=self.verbose,
                )
            else:
                x = self._to_model(X)
                batches, order = _shuffled_loader(
                    x, x, check_integer(self.batch_size, name="batch_size"), seed
                )
                history = _fit_module(
                    self.model_,
                    batches,
                    None,
                    max_epochs=max_epochs,
                    lr=check_positive(self.lr, name="lr"),
                    corruption=gaussian_noise(noise) if noise > 0 else None,
                    code_l1=0.0,
                    weight_l1=0.0,
                    weight_l2=0.0,
                    noise=order,
                    verbose=self.verbose,
                )
        self.model_.eval()
        self.solver_ = solver
        self.history_ = np.asarray(history["loss"])
        self.epoch_seconds_ = np.asarray(history["seconds"])
        self.n_iter_ = len(self.history_)
        self.n_features_in_ = X.shape[1]
        self.code_size_ = int(self.code_size)
        return self

    def transform(self, X):
        """Codes of ``X``: ndarray of shape (n_samples, code_size)."""
        x = self._to_model(check_transform_input(self, X))
        with _torch_settings():
            return _to_numpy(_encode_tensor(self.model_, x))

    def inverse_transform(self, Z):
        """Reconstructions from codes ``Z``: ndarray of shape (n_samples,
        n_features)."""
        check_is_fitted(self, "model_")
        Z = check_n_features(Z, self.code_size_, name="Z")
        with _torch_settings():
            decoded = _to_numpy(_decode_tensor(self.model_, _as_tensor(Z, self.model_)))
        return decoded * self.data_scale_ + self.data_offset_

    def _to_model(self, X):
        """``(X - data_offset_) / data_scale_`` as a float32 tensor."""
        return _as_tensor((X - self.data_offset_) / self.data_scale_)


def _root_mean_square(X):
    """The root mean square of the entries of ``X``; 1.0 when they are all zero."""
    rms = float(np.sqrt(np.mean(X**2)))
    return rms if rms > 0 else 1.0
