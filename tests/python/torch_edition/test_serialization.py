"""torch.save and torch.load in PyTorch's own file format: a file either the
real PyTorch or the edition saved loads in both with the same contents
(tensors of every dtype, 0-d, empty and transposed ones, parameters, a
state dict a model then loads, sizes, dtypes, containers); files of the
edition's earlier plain-pickle format still load; what the edition cannot
rebuild is refused with a clear error."""

import os
import pickle
import subprocess
import sys
import tempfile
import unittest
import zipfile

sys.path.insert(0, "../support")
from against_pytorch import HAS_TORCH, package_folder  # noqa: E402

import asyncscope.torch as atorch  # noqa: E402

SAVE = r'''
import os
import torch
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU(), torch.nn.Linear(2, 1))
torch.save({"state": net.state_dict(), "x": torch.arange(6).reshape(2, 3).t(),
            "f64": torch.rand(2, dtype=torch.float64), "b": torch.tensor([True, False]),
            "u8": torch.tensor([1, 255], dtype=torch.uint8), "i32": torch.tensor([-3], dtype=torch.int32),
            "scalar": torch.tensor(2.5), "empty": torch.zeros(0, 4), "list": [torch.ones(2), 3, "s"],
            "p": torch.nn.Parameter(torch.ones(2)), "size": torch.Size([2, 3]), "dtype": torch.float64},
           os.environ["SAVED"])
'''

LOAD = r'''
import os
import torch
obj = torch.load(os.environ["SAVED"])
for k in sorted(obj):
    v = obj[k]
    if k == "state":
        for n, t in v.items():
            print(k, n, t.dtype, tuple(t.shape), t.tolist())
        net = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU(), torch.nn.Linear(2, 1))
        net.load_state_dict(v)
        print("model", net(torch.ones(1, 3)).tolist())
    elif isinstance(v, torch.Tensor):
        print(k, type(v).__name__, v.dtype, tuple(v.shape), v.tolist(), v.requires_grad)
    elif isinstance(v, list):
        print(k, [x.tolist() if isinstance(x, torch.Tensor) else x for x in v])
    else:
        print(k, v)
'''


def run(program, real, saved):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "program.py")
        with open(path, "w") as f:
            f.write(program)
        command = [sys.executable, path] if real else [sys.executable, "-m", "asyncscope", path]
        env = dict(os.environ, SAVED=saved, PYTHONPATH=package_folder())
        done = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
    if done.returncode != 0:
        raise AssertionError(done.stderr)
    return done.stdout


@unittest.skipUnless(HAS_TORCH, "needs the real PyTorch (Debian's python3-torch) to compare with")
class AgainstPyTorch(unittest.TestCase):
    def test_a_file_either_saved_loads_in_both_with_the_same_contents(self):
        with tempfile.TemporaryDirectory() as folder:
            printed = {}
            for saver in ("real", "ours"):
                saved = os.path.join(folder, saver + ".pt")
                run(SAVE, saver == "real", saved)
                self.assertTrue(zipfile.is_zipfile(saved))
                for loader in ("real", "ours"):
                    printed[saver, loader] = run(LOAD, loader == "real", saved)
        expected = printed["real", "real"]
        self.assertIn("model [[", expected)
        for pair, text in printed.items():
            self.assertEqual(text.splitlines(), expected.splitlines(), "saved by %s, loaded by %s" % pair)


class Edition(unittest.TestCase):
    def test_a_round_trip_keeps_values_types_and_views(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "t.pt")
            x = atorch.arange(12).reshape(3, 4)
            atorch.save({"view": x[:, 1], "whole": x, "half": atorch.tensor([0.5], dtype=atorch.float64)}, path)
            back = atorch.load(path)
        self.assertEqual(back["view"].tolist(), [1, 5, 9])
        self.assertEqual(back["whole"].tolist(), x.tolist())
        self.assertEqual(back["half"].dtype, atorch.float64)

    def test_a_file_object_works_as_a_path_does(self):
        import io
        buffer = io.BytesIO()
        atorch.save(atorch.ones(2), buffer)
        buffer.seek(0)
        self.assertEqual(atorch.load(buffer).tolist(), [1.0, 1.0])

    def test_the_earlier_plain_pickle_format_still_loads(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "old.pt")
            with open(path, "wb") as f:
                pickle.dump({"w": atorch.tensor([1.0, 2.0])}, f)
            self.assertEqual(atorch.load(path)["w"].tolist(), [1.0, 2.0])

    def test_what_cannot_be_rebuilt_is_refused_by_name(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "module.pt")
            with zipfile.ZipFile(path, "w") as z:
                z.writestr("module/data.pkl", b"\x80\x02ctorch.nn.modules.linear\nLinear\nq\x00.")
                z.writestr("module/version", b"3\n")
            with self.assertRaisesRegex(pickle.UnpicklingError, "torch.nn.modules.linear.Linear"):
                atorch.load(path)
            with open(path, "wb") as f:
                pickle.dump(0x1950a86a20f9469cfc6c, f)
            with self.assertRaisesRegex(RuntimeError, "before 1.6"):
                atorch.load(path)

    def test_a_tensor_on_the_left_of_a_one_element_parameter_broadcasts(self):
        # Python asks the subclass's reflected method first; its operand is an array, not a number.
        b = atorch.nn.Parameter(atorch.tensor([2.0]))
        a = atorch.ones(3, 1)
        for result in (a + b, a - b, a * b, a / b, a ** b):
            self.assertEqual(tuple(result.shape), (3, 1))
        self.assertEqual((a - b).tolist(), [[-1.0]] * 3)
        self.assertEqual(tuple(atorch.nn.Linear(2, 1)(atorch.ones(1, 2)).shape), (1, 1))


if __name__ == "__main__":
    unittest.main()
