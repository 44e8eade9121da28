"""The d2l helpers the chapter uses, per framework: `from asyncscope.d2l
import torch as d2l` or `from asyncscope.d2l import mxnet as d2l`."""
