// engine/nn in one include: Parameter, ParameterDict and initializers,
// layers (Dense, ReLU, Sequential), L2Loss, Trainer. Autograd and the ops
// they are built on are engine/tensor's (autograd.h, ops.h).
// Threading: frontend only, like everything it includes.
#pragma once

#include "engine/nn/layers.h"
#include "engine/nn/loss.h"
#include "engine/nn/optimizer.h"
#include "engine/nn/parameter.h"
#include "engine/tensor/autograd.h"
#include "engine/tensor/ops.h"
