"""torch.return_types: the named tuples PyTorch's functions return
(torch.max(x, 1) -> torch.return_types.max(values=..., indices=...)), with
PyTorch's printed form, one field per line.

Threading: any thread (plain tuples).
"""

import collections as _collections


def _structseq(name, fields):
    """A tuple class named `name` with `fields`, printed as PyTorch prints its return types."""
    base = _collections.namedtuple(name, fields)

    def __repr__(self):
        return "torch.return_types.%s(\n%s)" % (name, ",\n".join("%s=%r" % (f, v) for f, v in zip(fields, self)))

    return type(name, (base,), {"__slots__": (), "__repr__": __repr__, "__str__": __repr__,
                                "__module__": __name__})


max = _structseq("max", ["values", "indices"])
min = _structseq("min", ["values", "indices"])
sort = _structseq("sort", ["values", "indices"])
topk = _structseq("topk", ["values", "indices"])
aminmax = _structseq("aminmax", ["min", "max"])
cummax = _structseq("cummax", ["values", "indices"])
cummin = _structseq("cummin", ["values", "indices"])
histogram = _structseq("histogram", ["hist", "bin_edges"])
median = _structseq("median", ["values", "indices"])
nanmedian = _structseq("nanmedian", ["values", "indices"])
kthvalue = _structseq("kthvalue", ["values", "indices"])
linalg_svd = _structseq("linalg_svd", ["U", "S", "Vh"])
linalg_qr = _structseq("linalg_qr", ["Q", "R"])
linalg_eigh = _structseq("linalg_eigh", ["eigenvalues", "eigenvectors"])
linalg_slogdet = _structseq("linalg_slogdet", ["sign", "logabsdet"])
linalg_lu_factor = _structseq("linalg_lu_factor", ["LU", "pivots"])
linalg_lu_factor_ex = _structseq("linalg_lu_factor_ex", ["LU", "pivots", "info"])
linalg_lu = _structseq("linalg_lu", ["P", "L", "U"])
linalg_inv_ex = _structseq("linalg_inv_ex", ["inverse", "info"])
linalg_cholesky_ex = _structseq("linalg_cholesky_ex", ["L", "info"])
linalg_solve_ex = _structseq("linalg_solve_ex", ["result", "info"])
svd = _structseq("svd", ["U", "S", "V"])
qr = _structseq("qr", ["Q", "R"])
geqrf = _structseq("geqrf", ["a", "tau"])
triangular_solve = _structseq("triangular_solve", ["solution", "cloned_coefficient"])
symeig = _structseq("symeig", ["eigenvalues", "eigenvectors"])
slogdet = _structseq("slogdet", ["sign", "logabsdet"])
lu_unpack = _structseq("lu_unpack", ["P", "L", "U"])
