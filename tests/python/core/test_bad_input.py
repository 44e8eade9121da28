"""What students' first variations of the chapter's code do, under plain
python3: in-place operators that keep the object, empty arrays, shapes too
large for any array, NumPy arrays as operands, the in-place bound (each
case in a process of its own, since configure() comes before the first
array), errors that name the script's line and function, and Ctrl+C during
a long wait."""

import os
import signal
import subprocess
import sys
import textwrap
import time
import unittest

import numpy as np

from asyncscope import nd, torch


def run_python(code, timeout=120, **popen):
    """Runs `code` in a fresh python3 with this package; its CompletedProcess."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout, **popen)


class InPlace(unittest.TestCase):
    def test_nd_operators_update_the_same_array(self):
        x = nd.ones((2, 3))
        y = x
        x += 1
        self.assertIs(x, y)
        x -= 0.5
        x *= nd.array([1.0, 2.0, 4.0])  # broadcast along the rows
        x /= 2
        self.assertIs(x, y)
        np.testing.assert_allclose(y.asnumpy(), np.array([[0.75, 1.5, 3.0]] * 2, np.float32))
        x += x
        np.testing.assert_allclose(y.asnumpy(), np.array([[1.5, 3.0, 6.0]] * 2, np.float32))

    def test_torch_operators_update_the_same_tensor(self):
        t = torch.ones(3)
        u = t
        t += 1
        t *= 3
        t -= torch.ones(3)
        t /= 5
        self.assertIs(t, u)
        np.testing.assert_allclose(u.numpy(), np.ones(3, np.float32))

    def test_an_update_that_would_change_the_shape_is_refused_as_numpy_does(self):
        x = nd.ones((3,))
        with self.assertRaisesRegex(ValueError, "3 array in place"):
            x += nd.ones((2, 3))
        np.testing.assert_array_equal(x.asnumpy(), np.ones(3, np.float32))

    def test_an_operand_that_is_not_an_array_or_a_number_falls_back_as_python_does(self):
        x = nd.ones((2,))
        with self.assertRaises(TypeError):
            x += "one"


class Empty(unittest.TestCase):
    def test_empty_arrays_are_made_read_and_printed(self):
        self.assertEqual(nd.array([]).shape, (0,))
        self.assertEqual(nd.array([]).asnumpy().shape, (0,))
        self.assertIn("<NDArray 0 @cpu(0)>", str(nd.array([])))
        self.assertEqual(torch.tensor([]).numpy().shape, (0,))
        self.assertEqual((nd.zeros((0, 3)) + 1).asnumpy().shape, (0, 3))

    def test_a_product_over_an_empty_inner_dimension_is_zeros_as_in_numpy(self):
        np.testing.assert_array_equal(nd.dot(nd.ones((3, 0)), nd.ones((0, 3))).asnumpy(), np.zeros((3, 3)))
        self.assertEqual(nd.dot(nd.ones((0, 4)), nd.ones((4, 2))).asnumpy().shape, (0, 2))
        np.testing.assert_array_equal(torch.mm(torch.ones(2, 0), torch.ones(0, 5)).numpy(), np.zeros((2, 5)))


class TooLarge(unittest.TestCase):
    def test_shapes_beyond_any_array_are_value_errors_not_wrapped_sizes(self):
        for shape in [(2**62, 4), (2**61 + 1, 8), (2**63,), (2**40, 2**40), (2**100,)]:
            with self.subTest(shape=shape):
                with self.assertRaisesRegex(ValueError, "more than any array can hold"):
                    nd.ones(shape)
                with self.assertRaisesRegex(ValueError, "more than any array can hold"):
                    torch.zeros(*shape)

    def test_a_reshape_to_too_many_elements_is_refused(self):
        with self.assertRaises(ValueError):
            nd.ones((4,)).reshape((2**40, 2**40, -1))


class NumPyOperands(unittest.TestCase):
    def test_mxnet_refuses_a_numpy_array_naming_it(self):
        for expr in (lambda: nd.ones(2) + np.ones(2), lambda: np.ones(2) * nd.ones(2)):
            with self.assertRaisesRegex(TypeError, "numpy"):
                expr()

    def test_pytorch_takes_a_numpy_array_on_either_side(self):
        for t in (torch.ones(2) + np.ones(2), np.ones(2) + torch.ones(2), torch.ones(2) * np.full(2, 3.0)):
            self.assertIsInstance(t, torch.Tensor)
        np.testing.assert_array_equal((np.arange(3.0) - torch.ones(3)).numpy(), np.arange(3.0) - 1)


class Messages(unittest.TestCase):
    def test_errors_name_the_function_the_script_called(self):
        with self.assertRaisesRegex(RuntimeError, "^mm: inner dimensions differ"):
            torch.mm(torch.ones(2, 3), torch.ones(2, 3))
        with self.assertRaisesRegex(RuntimeError, r"^matmul: shapes 2x3 and 2x3 cannot be multiplied"):
            torch.ones(2, 3) @ torch.ones(2, 3)

    def test_a_bad_device_name_says_what_a_device_name_looks_like(self):
        for name in ("cuda:x", "tpu", "gpu(-1)", "cuda:1x"):
            with self.assertRaisesRegex(ValueError, "device") as caught:
                nd.ones((2,), ctx=name)
            self.assertNotIn("stoi", str(caught.exception))
            with self.assertRaisesRegex(RuntimeError, "device"):
                torch.device(name)
        self.assertEqual(str(torch.device("cuda", 1)), "cuda:1")
        self.assertIsNone(torch.device("cuda").index)
        self.assertEqual(torch.device("cpu:0").index, 0)

    def test_backward_without_a_graph_names_no_cpp_type(self):
        with self.assertRaises(RuntimeError) as caught:
            nd.ones((2,)).backward()
        self.assertNotIn("::", str(caught.exception))

    def test_a_failed_op_names_the_line_that_pushed_it(self):
        # The budget refuses the big array on the worker: the error shows at
        # the sync point two lines later, naming the line of the push.
        r = run_python("""
            from asyncscope import nd
            x = nd.ones((100, 100))
            y = nd.ones((20000, 20000))
            z = x + 1
            try:
                y.wait_to_read()
            except MemoryError as e:
                print(e)
            """, env=dict(os.environ, ASYNCSCOPE_MEMORY_BUDGET_MB="64"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("op 'ones'", r.stdout)
        self.assertRegex(r.stdout.strip(), r"\(pushed at <string>:4\)$")


class InFlightBound(unittest.TestCase):
    def test_the_bound_holds_pushes_without_touching_python_objects_unlocked(self):
        r = run_python("""
            import asyncscope
            asyncscope.configure(max_inflight=5, workers=1)
            from asyncscope import nd, torch
            x = nd.ones((4, 4))
            for i in range(300):
                x = nd.ones((4, 4)) + x
            t = torch.zeros(3, 3)
            for i in range(300):
                t = t + torch.ones((3, 3))
            print(x.asnumpy()[0, 0], t.numpy()[0, 0])
            """)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.split(), ["301.0", "300.0"])


class Interrupt(unittest.TestCase):
    def test_ctrl_c_ends_a_long_wait_at_once_and_the_engine_goes_on(self):
        code = textwrap.dedent("""
            import sys, time
            from asyncscope import nd
            x = nd.random.uniform(shape=(600, 600))
            for i in range(2000):
                x = nd.dot(x, x) / 600
            print("waiting", flush=True)
            t0 = time.monotonic()
            try:
                x.wait_to_read()
                print("ended normally")
            except KeyboardInterrupt:
                print("interrupted after", round(time.monotonic() - t0, 2), flush=True)
            y = nd.ones((2,)) + 1
            print("after", y.asnumpy()[0], flush=True)
            import os
            os._exit(0)  # not waiting for the rest of the chain
            """)
        p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        try:
            self.assertEqual(p.stdout.readline().strip(), "waiting")
            time.sleep(0.5)  # inside the wait (the chain takes far longer)
            p.send_signal(signal.SIGINT)
            line = p.stdout.readline().split()
            # The rest through the same buffered reader: communicate() reads the pipe
            # itself and would miss what readline() already buffered (the next line
            # often comes in the same read).
            out = p.stdout.read()
            err = p.stderr.read()
            p.wait(timeout=300)
        finally:
            p.kill()
        self.assertEqual(line[:2], ["interrupted", "after"], err)
        self.assertIn("after 2.0", out, err)


if __name__ == "__main__":
    unittest.main()
