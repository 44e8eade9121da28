// The PyTorch edition's factorisations (engine/tensor/factor.h) as private
// functions of _core.torch (_svd, _qr, _eigh, ...), each giving a tuple of
// Tensors; python/asyncscope/torch/linalg.py makes torch.linalg's and
// torch's functions of them, with PyTorch's names, arguments and results.
// Threading: the frontend thread, as every op.
#include <pybind11/stl.h>

#include <string>

#include "engine/tensor/factor.h"
#include "python/core/arrays.h"
#include "python/core/bindings.h"

namespace asyncscope::python {

void bind_linalg(py::module_& m) {
  py::module_ t = m.attr("torch");
  t.def("_svd", [](const Tensor& x, bool full_matrices, bool compute_uv) {
    Svd r;
    push_as<Tensor>(x.a, [&] {
      r = svd(x.a, full_matrices, compute_uv);
      return r.s;
    });
    if (!compute_uv) return py::make_tuple(wrap(Tensor{r.s}));
    return py::make_tuple(wrap(Tensor{r.u}), wrap(Tensor{r.s}), wrap(Tensor{r.vh}));
  }, py::arg("input"), py::arg("full_matrices"), py::arg("compute_uv"));
  t.def("_qr", [](const Tensor& x, const std::string& mode) {
    Qr r;
    push_as<Tensor>(x.a, [&] {
      r = qr(x.a, mode.c_str());
      return r.r;
    });
    if (r.q.is_null()) return py::make_tuple(wrap(Tensor{r.r}));
    return py::make_tuple(wrap(Tensor{r.q}), wrap(Tensor{r.r}));
  }, py::arg("input"), py::arg("mode"));
  t.def("_geqrf", [](const Tensor& x) {
    QrReflectors r;
    push_as<Tensor>(x.a, [&] {
      r = geqrf(x.a);
      return r.a;
    });
    return py::make_tuple(wrap(Tensor{r.a}), wrap(Tensor{r.tau}));
  }, py::arg("input"));
  t.def("_ormqr", [](const Tensor& a, const Tensor& tau, const Tensor& c, bool left, bool transpose) {
    return push_as<Tensor>(a.a, [&] { return ormqr(a.a, tau.a, c.a, left, transpose); });
  }, py::arg("input"), py::arg("tau"), py::arg("other"), py::arg("left"), py::arg("transpose"));
  t.def("_eigh", [](const Tensor& x, bool upper, bool compute_vectors) {
    Eigh r;
    push_as<Tensor>(x.a, [&] {
      r = eigh(x.a, upper, compute_vectors);
      return r.values;
    });
    if (!compute_vectors) return py::make_tuple(wrap(Tensor{r.values}));
    return py::make_tuple(wrap(Tensor{r.values}), wrap(Tensor{r.vectors}));
  }, py::arg("input"), py::arg("upper"), py::arg("compute_vectors"));
  t.def("_cholesky", [](const Tensor& x, bool upper) {
    return push_as<Tensor>(x.a, [&] { return cholesky(x.a, upper); });
  }, py::arg("input"), py::arg("upper"));
  t.def("_lu_factor", [](const Tensor& x) {
    Lu r;
    push_as<Tensor>(x.a, [&] {
      r = lu_factor(x.a);
      return r.lu;
    });
    return py::make_tuple(wrap(Tensor{r.lu}), wrap(Tensor{r.pivots}));
  }, py::arg("input"));
  t.def("_lu_solve", [](const Tensor& lu, const Tensor& pivots, const Tensor& b, bool transpose) {
    return push_as<Tensor>(lu.a, [&] { return lu_solve(lu.a, pivots.a, b.a, transpose); });
  }, py::arg("LU"), py::arg("pivots"), py::arg("B"), py::arg("transpose"));
  t.def("_inverse", [](const Tensor& x) { return push_as<Tensor>(x.a, [&] { return inverse(x.a); }); },
        py::arg("input"));
  t.def("_solve_triangular", [](const Tensor& a, const Tensor& b, bool upper, bool transpose, bool unit) {
    return push_as<Tensor>(a.a, [&] { return solve_triangular(a.a, b.a, upper, transpose, unit); });
  }, py::arg("A"), py::arg("B"), py::arg("upper"), py::arg("transpose"), py::arg("unitriangular"));
}

}  // namespace asyncscope::python
