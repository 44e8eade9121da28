"""torch.hub of the PyTorch edition: importable, so that programs that
import it run; downloading models or weights is not in this edition, and
each function says so when called.

Threading: any.
"""


def _not_here(name):
    def refuse(*args, **kwargs):
        raise NotImplementedError("torch.hub.%s is not in asyncscope's PyTorch edition (it downloads nothing)"
                                  % name)
    refuse.__name__ = name
    return refuse


load = _not_here("load")
list = _not_here("list")  # noqa: A001 (torch.hub's own name)
help = _not_here("help")  # noqa: A001
load_state_dict_from_url = _not_here("load_state_dict_from_url")
download_url_to_file = _not_here("download_url_to_file")


def get_dir():
    """Where torch.hub would keep its downloads (~/.cache/torch/hub), though this edition downloads nothing."""
    import os
    return os.path.join(os.path.expanduser("~"), ".cache", "torch", "hub")


__all__ = ["load", "list", "help", "load_state_dict_from_url", "download_url_to_file", "get_dir"]
