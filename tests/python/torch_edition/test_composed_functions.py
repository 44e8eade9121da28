"""The PyTorch edition's functions made of its own ops (torch/composed.py)
against the real PyTorch: the same values, shape and dtype on the same
inputs, the same exception class where PyTorch refuses, and gradients where
the ops they are made of have them."""

import unittest

import numpy as onp

from asyncscope import torch as atorch

try:
    import torch as real_torch
except ImportError:  # make test installs python3-torch; a bare environment may not have it
    real_torch = None
NO_TORCH = "the real PyTorch is not installed (apt-get install python3-torch)"

from composed_inputs import B, I, M, SPECIAL, SQ, V
IDX = onp.array([[0, 3], [2, 2], [1, 0]], dtype=onp.int64)

# name -> f(T, t): the same code on either module; t makes a tensor of T from NumPy.
CASES = {
    "eq": lambda T, t: T.eq(t(I), 2),
    "ne method": lambda T, t: t(I).ne(t(I).flip(1)),
    "gt ge lt le": lambda T, t: T.stack([T.gt(t(M), 0), T.ge(t(M), 0), T.lt(t(M), 0), T.le(t(M), 0)]),
    "isnan isinf isfinite": lambda T, t: T.stack([T.isnan(t(SPECIAL)), T.isinf(t(SPECIAL)), T.isfinite(t(SPECIAL))]),
    "isfinite of ints": lambda T, t: T.isfinite(t(I)),
    "isclose": lambda T, t: T.isclose(t(M), t(M) + 1e-6),
    "isclose equal_nan": lambda T, t: T.isclose(t(SPECIAL), t(SPECIAL), equal_nan=True),
    "rsqrt": lambda T, t: T.rsqrt(t(M).abs() + 1),
    "lerp": lambda T, t: T.lerp(t(M), t(M) * 3, 0.25),
    "dist": lambda T, t: T.dist(t(M), t(M) * 2),
    "dist p1": lambda T, t: T.dist(t(M), t(M) * 2, p=1),
    "masked_fill": lambda T, t: t(M).masked_fill(t(M) > 0, -1.0),
    "masked_fill int": lambda T, t: t(I).masked_fill(t(I) < 0, 7),
    "masked_fill tensor value": lambda T, t: t(M).masked_fill(t(M) > 0, T.tensor(2.5)),
    "narrow": lambda T, t: T.narrow(t(M), 1, 1, 2),
    "narrow negative start": lambda T, t: t(M).narrow(-1, -3, 2),
    "select": lambda T, t: t(B).select(1, -1),
    "unbind": lambda T, t: T.stack(T.unbind(t(B), dim=2)),
    "index_select": lambda T, t: T.index_select(t(M), 1, T.tensor([3, 0, 3])),
    "gather": lambda T, t: T.gather(t(M), 1, t(IDX)),
    "gather dim 0": lambda T, t: t(M).gather(0, T.tensor([[2, 1, 0, 1]])),
    "diag of a vector": lambda T, t: T.diag(t(V)),
    "diag above": lambda T, t: T.diag(t(V), 2),
    "diag below": lambda T, t: T.diag(t(V), -1),
    "diag of a matrix": lambda T, t: T.diag(t(M)),
    "diag of a matrix above": lambda T, t: t(M).diag(1),
    "diag of a matrix below": lambda T, t: T.diag(t(M), -2),
    "trace": lambda T, t: T.trace(t(SQ)),
    "tril": lambda T, t: T.tril(t(M)),
    "triu 1": lambda T, t: T.triu(t(M), 1),
    "tril batched": lambda T, t: t(B).tril(-1),
    "tril of ints": lambda T, t: T.tril(t(I)),
    "roll": lambda T, t: T.roll(t(M), 1, 1),
    "roll flat": lambda T, t: T.roll(t(M), -5),
    "roll two dims": lambda T, t: T.roll(t(M), (1, -2), (0, 1)),
    "logsumexp": lambda T, t: T.logsumexp(t(M) * 30, 1),
    "logsumexp keepdim": lambda T, t: t(B).logsumexp(dim=(0, 2), keepdim=True),
    "logsumexp of -inf": lambda T, t: T.logsumexp(T.full((2, 3), float("-inf")), 1),
    "addmm": lambda T, t: T.addmm(t(V), t(M), t(SQ), beta=0.5, alpha=2),
    "addmm beta 0 ignores NaN": lambda T, t: T.addmm(T.full((3, 4), float("nan")), t(M), t(SQ), beta=0),
    "baddbmm": lambda T, t: T.baddbmm(T.ones(2, 3, 3), t(B), t(B).transpose(1, 2), alpha=0.5),
    "meshgrid ij": lambda T, t: T.stack(T.meshgrid(T.arange(3), T.arange(4), indexing="ij")),
    "meshgrid xy": lambda T, t: T.stack(T.meshgrid(T.arange(3), T.arange(4), indexing="xy")),
    "meshgrid three": lambda T, t: T.stack(T.meshgrid([T.arange(2), T.arange(3), T.arange(4)], indexing="xy")),
    "logspace": lambda T, t: T.logspace(0, 2, 5),
    "logspace base 2": lambda T, t: T.logspace(-1, 3, 3, base=2.0),
    "full": lambda T, t: T.stack([T.full((2, 2), 7), T.full((2, 2), 3, dtype=T.int64)]),
    "full float": lambda T, t: T.full([3], 1.5),
    "zeros_like keeps the type": lambda T, t: T.zeros_like(t(I)),
    "ones_like dtype": lambda T, t: T.ones_like(t(I), dtype=T.bool),
    "full_like casts": lambda T, t: T.full_like(t(I), 2.7),
    "new_zeros": lambda T, t: t(I).new_zeros(2, 3),
    "new_ones": lambda T, t: t(M).new_ones((2,)),
    "new_full": lambda T, t: t(I).new_full((2,), 4),
    "new_tensor": lambda T, t: t(M).new_tensor([1, 2]),
    "type_as": lambda T, t: t(M).type_as(t(I)),
    "view_as": lambda T, t: t(M).view_as(T.zeros(4, 3)),
    "expand_as": lambda T, t: t(V).expand_as(t(M)),
    "where method": lambda T, t: t(M).where(t(M) > 0, T.zeros(())),
    "byte": lambda T, t: t(I).abs().byte(),
    "tril_": lambda T, t: t(M).clone().tril_(),
    "views write through": lambda T, t: written_through(T, t(M).clone()),
    "masked_fill_": lambda T, t: t(I).clone().masked_fill_(t(I) > 0, 0),
    "matmul batched": lambda T, t: T.matmul(t(B), t(B).transpose(1, 2)),
    "matmul batch @ matrix": lambda T, t: t(B) @ t(SQ),
    "matmul vector @ batch": lambda T, t: T.matmul(t(V), t(B).transpose(1, 2)),
    "logical_not": lambda T, t: T.logical_not(t(I)),
    "logical_and or xor": lambda T, t: T.stack([T.logical_and(t(I), t(M) > 0), T.logical_or(t(I), t(M) > 0),
                                                T.logical_xor(t(I), t(M) > 0)]),
    "clamp_min clamp_max": lambda T, t: T.stack([t(M).clamp_min(0.1), T.clamp_max(t(M), -0.2)]),
    "addcmul": lambda T, t: T.addcmul(t(M), t(M), t(V), value=0.5),
    "addcdiv method": lambda T, t: t(M).addcdiv(t(V), t(M).abs() + 1, value=-2),
    "addcmul_": lambda T, t: t(M).clone().addcmul_(t(M), t(M)),
    "heaviside": lambda T, t: T.heaviside(T.tensor([-1.5, 0.0, 2.0]), T.tensor(0.5)),
    "std_mean": lambda T, t: T.stack(T.std_mean(t(M), 1)),
    "var_mean all": lambda T, t: T.stack(T.var_mean(t(M), unbiased=False)),
    "hstack": lambda T, t: T.hstack([t(M), t(M)]),
    "hstack vectors": lambda T, t: T.hstack([t(V), t(V)]),
    "vstack": lambda T, t: T.vstack([t(V), t(M)]),
    "column_stack": lambda T, t: T.column_stack([t(V), t(SQ)]),
    "fliplr flipud": lambda T, t: T.stack([T.fliplr(t(M)), T.flipud(t(M))]),
    "rot90": lambda T, t: T.rot90(t(M)),
    "rot90 k=3": lambda T, t: T.rot90(t(B), 3, (1, 2)),
    "rot90 k=2": lambda T, t: T.rot90(t(M), -2),
    "diff": lambda T, t: T.diff(t(M)),
    "diff n=2 dim 0": lambda T, t: T.diff(t(I), n=2, dim=0),
    "diff prepend append": lambda T, t: T.diff(t(V), prepend=T.zeros(1), append=T.ones(2)),
    "diff of bools": lambda T, t: T.diff(t(M) > 0),
    "cross": lambda T, t: T.cross(t(M)[:, :3], t(M)[:, 1:], dim=1),
    "kron": lambda T, t: T.kron(t(M)[:2, :2], t(SQ)[:3, :2]),
    "kron of vectors": lambda T, t: T.kron(t(V), t(V)[:2]),
    "cdist": lambda T, t: T.cdist(t(M), t(SQ)),
    "cdist p=1 batched": lambda T, t: T.cdist(t(B), t(B), p=1),
    "cosine_similarity": lambda T, t: T.nn.functional.cosine_similarity(t(M), t(V)),
    "pairwise_distance": lambda T, t: T.nn.functional.pairwise_distance(t(M), t(M).flip(0)),
    "searchsorted": lambda T, t: T.searchsorted(T.tensor([1.0, 3.0, 3.0, 5.0]), T.tensor([[0.5, 3.0], [3.5, 9.0]])),
    "searchsorted right": lambda T, t: T.searchsorted(T.tensor([1, 3, 3, 5]), T.tensor([3, 5]), right=True),
    "searchsorted batched int32": lambda T, t: T.searchsorted(T.sort(t(M), dim=1).values, t(M)[:, :2].contiguous(),
                                                              out_int32=True),
    "bucketize": lambda T, t: T.bucketize(t(M), T.tensor([-1.0, 0.0, 1.0])),
    "bucketize right": lambda T, t: T.bucketize(T.tensor([0.0, 1.0, 2.0]), T.tensor([0.0, 1.0]), right=True),
    "bincount": lambda T, t: T.bincount(T.tensor([1, 4, 1, 0, 4, 4])),
    "bincount minlength": lambda T, t: T.bincount(T.tensor([2, 0]), minlength=5),
    "bincount weights": lambda T, t: T.bincount(T.tensor([1, 0, 1]), weights=T.tensor([0.5, 2.0, 1.0])),
    "einsum matmul": lambda T, t: T.einsum("ij,jk->ik", t(M), t(SQ)),
    "einsum attention": lambda T, t: T.einsum("bqd,bkd->bqk", t(B), t(B)),
    "einsum diagonal and trace": lambda T, t: T.stack([T.einsum("ii->i", t(SQ)), T.einsum("ii", t(SQ)).expand(4)]),
    "einsum outer": lambda T, t: T.einsum("i,j->ij", t(V), t(V)),
    "einsum implicit": lambda T, t: T.einsum("ij,kj", t(M), t(M)),
    "einsum ellipsis": lambda T, t: T.einsum("...ij,jk->...ik", t(B), t(SQ)),
    "einsum three": lambda T, t: T.einsum("ij,jk,k->i", t(M), t(SQ), t(V)),
    "einsum ints": lambda T, t: T.einsum("ij,kj->ik", t(I), t(I)),
    "einsum list": lambda T, t: T.einsum("bij->bj", [t(B)]),
    "mT": lambda T, t: t(B).mT,
    "tril_indices": lambda T, t: T.tril_indices(3, 4),
    "triu_indices offset": lambda T, t: T.triu_indices(4, 3, 1),
    "histc": lambda T, t: T.histc(t(M), bins=5, min=-1, max=1),
    "histc own range": lambda T, t: t(M).histc(4),
    "linalg.norm": lambda T, t: T.stack([T.linalg.norm(t(M)), T.linalg.norm(t(V), 1), T.linalg.norm(t(M), "fro"),
                                         T.linalg.norm(t(M), float("inf")), T.linalg.norm(t(M), -1)]),
    "linalg.norm dim": lambda T, t: T.linalg.norm(t(B), dim=(0, 2), keepdim=True),
    "linalg.vector_norm": lambda T, t: T.stack([T.linalg.vector_norm(t(B), 3), T.linalg.vector_norm(t(B), 0),
                                                T.linalg.vector_norm(t(B), float("-inf"))]),
    "linalg.vector_norm dim": lambda T, t: T.linalg.vector_norm(t(M), 0.5, dim=1),
    "linalg.matrix_norm": lambda T, t: T.linalg.matrix_norm(t(B), 1),
    "linalg.matrix_norm inf keepdim": lambda T, t: T.linalg.matrix_norm(t(B), float("inf"), keepdim=True),
    "numel is_tensor": lambda T, t: T.tensor([T.numel(t(B)), int(T.is_tensor(t(B))), int(T.is_tensor(3))]),
}

def written_through(T, x):
    """x after writes through its narrow, select and unbind views."""
    x.narrow(1, 1, 2).zero_()
    x.select(0, 2).fill_(7)
    row = T.unbind(x)[0]
    row += 100
    return x


# Refused by both with the same exception class.
REFUSED = {
    "narrow past the end": lambda T, t: T.narrow(t(M), 1, 3, 2),
    "select out of range": lambda T, t: t(M).select(0, 3),
    "dim out of range": lambda T, t: T.unbind(t(M), 2),
    "gather of fewer dims": lambda T, t: T.gather(t(M), 1, T.tensor([0, 1])),
    "diag of 3-D": lambda T, t: T.diag(t(B)),
    "trace of a vector": lambda T, t: T.trace(t(V)),
    "masked_fill with a vector": lambda T, t: t(M).masked_fill(t(M) > 0, T.ones(2)),
    "roll misaligned": lambda T, t: T.roll(t(M), (1, 2), 0),
    "meshgrid indexing": lambda T, t: T.meshgrid(T.arange(2), indexing="ji"),
    "rand_like of ints": lambda T, t: T.rand_like(t(I)),
    "matmul batched sizes": lambda T, t: T.matmul(t(B), t(B)),
    "fliplr of a vector": lambda T, t: T.fliplr(t(V)),
    "rot90 same dims": lambda T, t: T.rot90(t(M), 1, (0, 0)),
    "cross without 3": lambda T, t: T.cross(t(M), t(M), dim=1),
    "cdist columns": lambda T, t: T.cdist(t(M), t(B)[0][:, :3]),
    "bincount negative": lambda T, t: T.bincount(T.tensor([1, -1])),
    "bincount floats": lambda T, t: T.bincount(t(V)),
    "bucketize 2-D boundaries": lambda T, t: T.bucketize(t(V), t(M)),
    "einsum operand count": lambda T, t: T.einsum("ij,jk->ik", t(M)),
    "einsum subscripts": lambda T, t: T.einsum("ijk->i", t(M)),
    "einsum output letter": lambda T, t: T.einsum("ij->iz", t(M)),
    "histc of ints": lambda T, t: T.histc(t(I)),
    "vector_norm of ints": lambda T, t: T.linalg.vector_norm(t(I)),
    "matrix_norm of a vector": lambda T, t: T.linalg.matrix_norm(t(V)),
}


def as_numpy(x):
    return x.detach().cpu().numpy() if hasattr(x, "detach") else onp.asarray(x)


@unittest.skipIf(real_torch is None, NO_TORCH)
class ComposedAgainstPyTorch(unittest.TestCase):
    def run_both(self, f):
        ours = f(atorch, lambda a: atorch.tensor(a))
        theirs = f(real_torch, lambda a: real_torch.tensor(a))
        return ours, theirs

    def test_the_same_values_shape_and_type(self):
        for name, f in CASES.items():
            with self.subTest(name):
                ours, theirs = self.run_both(f)
                self.assertEqual(tuple(ours.shape), tuple(theirs.shape))
                self.assertEqual(repr(ours.dtype), repr(theirs.dtype))
                onp.testing.assert_allclose(as_numpy(ours), as_numpy(theirs), rtol=1e-5, atol=1e-6)

    def test_the_same_refusals(self):
        for name, f in REFUSED.items():
            with self.subTest(name):
                with self.assertRaises(Exception) as real:
                    f(real_torch, lambda a: real_torch.tensor(a))
                with self.assertRaises(type(real.exception)):
                    f(atorch, lambda a: atorch.tensor(a))

    def test_allclose_is_a_bool_as_pytorch_s(self):
        for a, b in ((M, M + 1e-7), (M, M + 1e-2), (SPECIAL, SPECIAL)):
            ours = atorch.allclose(atorch.tensor(a), atorch.tensor(b))
            theirs = real_torch.allclose(real_torch.tensor(a), real_torch.tensor(b))
            self.assertIs(ours, theirs)
        self.assertTrue(atorch.allclose(atorch.tensor(SPECIAL), atorch.tensor(SPECIAL), equal_nan=True))

    def test_gradients_flow_through_them(self):
        def grads(T):
            x = T.tensor(M, requires_grad=True)
            y = (T.gather(x, 1, T.tensor(IDX)).sum() + T.logsumexp(x, 1).sum() + T.tril(x).sum() * 2
                 + T.diag(x[:, :3]).sum() + x.narrow(1, 1, 2).sum() + T.roll(x, 1, 0)[0].sum())
            y.backward()
            return as_numpy(x.grad)
        onp.testing.assert_allclose(grads(atorch), grads(real_torch), rtol=1e-5, atol=1e-6)

    def test_gradients_flow_through_einsum_distances_and_differences(self):
        def grads(T):
            x = T.tensor(M, requires_grad=True)
            w = T.tensor(SQ, requires_grad=True)
            y = (T.einsum("ij,jk->ik", x, w).sum() + T.einsum("ii->i", w).sum() * 3 + T.cdist(x, w).sum()
                 + (T.diff(x, dim=0) ** 2).sum() + T.kron(x[:2, :2], w[:2, :2]).sum()
                 + T.nn.functional.cosine_similarity(x, x.flip(0)).sum() + T.addcmul(x, x, x).sum())
            y.backward()
            return as_numpy(x.grad), as_numpy(w.grad)
        for ours, theirs in zip(grads(atorch), grads(real_torch)):
            onp.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-5)


class ComposedOnTheirOwn(unittest.TestCase):
    def test_a_general_eigendecomposition_says_it_is_not_here(self):
        for call in (lambda: atorch.linalg.eig(atorch.eye(3)), lambda: atorch.linalg.eigvals(atorch.eye(3))):
            with self.assertRaisesRegex(NotImplementedError, "non-symmetric"):
                call()

    def test_a_singular_matrix_fails_its_op_at_the_sync_point(self):
        inverse = atorch.linalg.inv(atorch.ones(3, 3))  # pushed; LAPACK's failure is the op's
        with self.assertRaisesRegex(Exception, "the input matrix is singular"):
            inverse.numpy()

    def test_random_ones_keep_shape_type_and_range(self):
        x = atorch.zeros(50, 4, dtype=atorch.float64)
        ints = atorch.randint_like(x, 3, 6)
        self.assertEqual((tuple(ints.shape), repr(ints.dtype)), ((50, 4), "torch.float64"))
        values = set(ints.numpy().ravel().tolist())
        self.assertTrue(values <= {3.0, 4.0, 5.0} and len(values) > 1, values)
        coin = atorch.bernoulli(atorch.full((400,), 0.5))
        self.assertEqual(repr(coin.dtype), "torch.float32")
        heads = float(coin.sum())
        self.assertTrue(set(coin.numpy().tolist()) <= {0.0, 1.0})
        self.assertTrue(100 < heads < 300, heads)
        self.assertEqual(tuple(atorch.empty(2, 3).shape), (2, 3))
        self.assertEqual(repr(atorch.empty_like(atorch.arange(3)).dtype), "torch.int64")

    def test_the_tensor_facts(self):
        x = atorch.zeros(2, 3, dtype=atorch.float64)
        self.assertEqual((x.nelement(), x.ndimension(), x.element_size()), (6, 2, 8))
        self.assertFalse(x.is_cuda)
        self.assertTrue(x.is_contiguous())
        self.assertIs(x.contiguous(), x)
        self.assertEqual(atorch.ones(3, dtype=atorch.bool).element_size(), 1)

    def test_a_triangle_needs_a_matrix(self):
        # PyTorch 2's message and class (1.13 raised an IndexError about the dims).
        with self.assertRaisesRegex(RuntimeError, "tril: input tensor must have at least 2 dimensions"):
            atorch.tril(atorch.ones(3))


if __name__ == "__main__":
    unittest.main()
