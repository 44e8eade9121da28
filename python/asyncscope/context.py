"""Devices in MXNet's spelling: cpu(), gpu(0). Arrays are made on the run's
device unless a creation function is given another one (ctx=gpu(0))."""


class Context:
    """A device: device_type 'cpu' or 'gpu', and its index."""

    def __init__(self, device_type, device_id=0):
        if device_type not in ("cpu", "gpu"):
            raise ValueError("device_type must be 'cpu' or 'gpu', got %r" % (device_type,))
        self.device_type = device_type
        self.device_id = int(device_id)

    def __repr__(self):
        return "%s(%d)" % (self.device_type, self.device_id)

    def __eq__(self, other):
        return isinstance(other, Context) and (self.device_type, self.device_id) == (other.device_type, other.device_id)

    def __hash__(self):
        return hash((self.device_type, self.device_id))


def cpu(device_id=0):
    """The host CPU."""
    return Context("cpu", device_id)


def gpu(device_id=0):
    """A CUDA device (needs a GPU and a build with the CUDA backend)."""
    return Context("gpu", device_id)
