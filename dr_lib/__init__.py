"""dr_lib: dimensionality reduction, derived, checked and run.

The library behind the executable book. Submodules are loaded on first use, so that
``import dr_lib`` stays fast and pulls in neither PyTorch nor matplotlib, sympy or
pandas::

    from dr_lib import datasets, plotting, symbolic

To expose a new submodule or class lazily, add one entry to ``_LAZY``.
"""

import importlib

__version__ = "0.1.0"

# public name -> (module to import, attribute of that module; None = the module itself)
_LAZY = {
    "datasets": ("dr_lib.datasets", None),
    "metrics": ("dr_lib.metrics", None),
    "plotting": ("dr_lib.plotting", None),
    "symbolic": ("dr_lib.symbolic", None),
    "exercises": ("dr_lib.exercises", None),
    "pca": ("dr_lib.pca", None),
    "mds": ("dr_lib.mds", None),
    "kernel_pca": ("dr_lib.kernel_pca", None),
    "kernels": ("dr_lib.kernels", None),
    "graphs": ("dr_lib.graphs", None),
    "isomap": ("dr_lib.isomap", None),
    "lle": ("dr_lib.lle", None),
    "laplacian_eigenmaps": ("dr_lib.laplacian_eigenmaps", None),
    "mahalanobis": ("dr_lib.mahalanobis", None),
    "nca": ("dr_lib.nca", None),
    "lda": ("dr_lib.lda", None),
    "mmc": ("dr_lib.mmc", None),
    "autoencoders": ("dr_lib.autoencoders", None),
    "PCA": ("dr_lib.pca", "PCA"),
    "ClassicalMDS": ("dr_lib.mds", "ClassicalMDS"),
    "KernelPCA": ("dr_lib.kernel_pca", "KernelPCA"),
    "Isomap": ("dr_lib.isomap", "Isomap"),
    "LocallyLinearEmbedding": ("dr_lib.lle", "LocallyLinearEmbedding"),
    "LaplacianEigenmaps": ("dr_lib.laplacian_eigenmaps", "LaplacianEigenmaps"),
    "NCA": ("dr_lib.nca", "NCA"),
    "LDA": ("dr_lib.lda", "LDA"),
    "MMC": ("dr_lib.mmc", "MMC"),
    "sne": ("dr_lib.sne", None),
    "tsne": ("dr_lib.tsne", None),
    "SNE": ("dr_lib.tsne", "SNE"),
    "TSNE": ("dr_lib.tsne", "TSNE"),
    "nerv": ("dr_lib.nerv", None),
    "NeRV": ("dr_lib.nerv", "NeRV"),
    "ClassNeRV": ("dr_lib.nerv", "ClassNeRV"),
    "umap": ("dr_lib.umap", None),
    "UMAP": ("dr_lib.umap", "UMAP"),
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name):
    """Import a lazily exposed submodule or attribute on first access (PEP 562)."""
    if name not in _LAZY:
        raise AttributeError(f"module 'dr_lib' has no attribute {name!r}")
    module_name, attribute = _LAZY[name]
    module = importlib.import_module(module_name)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value
    return value


def __dir__():
    """List the lazy names too, so tab completion shows them."""
    return sorted(set(globals()) | set(__all__))
