// engine/nn in one include: autograd (tape, Variable, differentiable ops),
// Parameter and initializers, layers (Dense, ReLU, Sequential), L2Loss, SGD.
// Threading: frontend only, like everything it includes.
#pragma once

#include "engine/nn/autograd.h"
#include "engine/nn/functional.h"
#include "engine/nn/layers.h"
#include "engine/nn/loss.h"
#include "engine/nn/optimizer.h"
#include "engine/nn/parameter.h"
