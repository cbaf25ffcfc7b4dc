"""Parameter-update ops appended by the optimizers: sgd, momentum, adam, adamw.

Their outputs (ParamOut, VelocityOut, Moment1Out...) name the same variables as the inputs,
so the update is "in place" in the program. The pure kernels return new arrays; the in-place
kernels (used by the Executor when that is safe) update the scope's buffers with the same
arithmetic in the same order, so both give bit-identical results. With a MasterParam (fp16
parameters trained in fp32) the update runs on the master copy and ParamOut is its cast (no
in-place path). None of these ops has a gradient.
"""
from __future__ import annotations

import numpy as np

from .registry import register_op
from .types import AttrType


def _like_inputs(*names):
    """Infer-shape rule: output i is like input slot ``names[i]`` (None: absent)."""
    def infer(*metas, **_):
        return tuple(metas[i] if i is not None else None for i in names)
    return infer


def _scalar(value, dtype):
    return dtype.type(value.reshape(-1)[0]) if isinstance(value, np.ndarray) else dtype.type(value)


def _result(param, master, new_value):
    """(ParamOut, MasterParamOut) for an update computed on ``master`` or ``param``."""
    if master is None:
        return new_value, None
    return new_value.astype(param.dtype), new_value


# -- sgd -----------------------------------------------------------------------------------------
sgd = register_op("sgd", inputs=["Param", "LearningRate", "Grad", "MasterParam?"],
                  outputs=["ParamOut", "MasterParamOut?"], attrs={"multi_precision": False},
                  differentiable=False, infer_shape=_like_inputs(0, 3), never_raises=True)


@sgd.def_kernel
def sgd_kernel(param, learning_rate, grad, master_param=None):
    base = param if master_param is None else master_param
    lr = _scalar(learning_rate, base.dtype)
    return _result(param, master_param, base - lr * grad.astype(base.dtype, copy=False))


@sgd.def_inplace_kernel(ParamOut="Param")
def sgd_inplace(param, learning_rate, grad, master_param=None):
    if master_param is not None or grad.dtype != param.dtype:
        return sgd_kernel(param, learning_rate, grad, master_param)
    np.subtract(param, _scalar(learning_rate, param.dtype) * grad, out=param)
    return param, None


# -- momentum ------------------------------------------------------------------------------------
momentum = register_op(
    "momentum", inputs=["Param", "Grad", "Velocity", "LearningRate", "MasterParam?"],
    outputs=["ParamOut", "VelocityOut", "MasterParamOut?"],
    attrs={"mu": 0.9, "use_nesterov": False, "regularization_method": "",
           "regularization_coeff": 0.0, "multi_precision": False, "rescale_grad": 1.0},
    differentiable=False, infer_shape=_like_inputs(0, 2, 4), never_raises=True)


@momentum.def_kernel
def momentum_kernel(param, grad, velocity, learning_rate, master_param=None, *, mu,
                    use_nesterov, regularization_method, regularization_coeff, rescale_grad):
    base = param if master_param is None else master_param
    t = base.dtype.type
    g = grad.astype(base.dtype, copy=False) * t(rescale_grad)
    if regularization_method == "l2_decay":
        g = g + t(regularization_coeff) * base
    elif regularization_method:
        raise ValueError(f"momentum: regularization_method must be '' or 'l2_decay', got "
                         f"'{regularization_method}'")
    lr = _scalar(learning_rate, base.dtype)
    v_out = t(mu) * velocity + g
    step = (g + t(mu) * v_out) * lr if use_nesterov else lr * v_out
    param_out, master_out = _result(param, master_param, base - step)
    return param_out, v_out, master_out


@momentum.def_inplace_kernel(ParamOut="Param", VelocityOut="Velocity")
def momentum_inplace(param, grad, velocity, learning_rate, master_param=None, *, mu,
                     use_nesterov, regularization_method, regularization_coeff, rescale_grad):
    if master_param is not None or regularization_method not in ("", "l2_decay") or \
            grad.dtype != param.dtype or velocity.dtype != param.dtype:
        return momentum_kernel(param, grad, velocity, learning_rate, master_param, mu=mu,
                               use_nesterov=use_nesterov, rescale_grad=rescale_grad,
                               regularization_method=regularization_method,
                               regularization_coeff=regularization_coeff)
    t = param.dtype.type
    g = grad * t(rescale_grad)
    if regularization_method == "l2_decay":
        g = g + t(regularization_coeff) * param
    lr = _scalar(learning_rate, param.dtype)
    np.multiply(velocity, t(mu), out=velocity)
    velocity += g
    step = (g + t(mu) * velocity) * lr if use_nesterov else lr * velocity
    param -= step
    return param, velocity, None


# -- adam / adamw --------------------------------------------------------------------------------
_ADAM_INPUTS = ["Param", "Grad", "LearningRate", "Moment1", "Moment2", "Beta1Pow", "Beta2Pow",
                "Beta1Tensor?", "Beta2Tensor?", "EpsilonTensor?", "MasterParam?", "SkipUpdate?"]
_ADAM_OUTPUTS = ["ParamOut", "Moment1Out", "Moment2Out", "Beta1PowOut", "Beta2PowOut",
                 "MasterParamOut?"]
_ADAM_ATTRS = {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8, "lazy_mode": False,
               "min_row_size_to_use_multithread": (AttrType.LONG, 1000),
               "multi_precision": False, "use_global_beta_pow": False}
_adam_shape = _like_inputs(0, 3, 4, 5, 6, 10)


def _adam_update(param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow,
                 beta1_tensor, beta2_tensor, epsilon_tensor, master_param, skip_update, *,
                 beta1, beta2, epsilon, use_global_beta_pow, decay=0.0, lr_ratio=1.0,
                 inplace=False):
    base = param if master_param is None else master_param
    inplace = inplace and master_param is None and grad.dtype == moment1.dtype == \
        moment2.dtype == param.dtype
    if skip_update is not None and bool(skip_update.reshape(-1)[0]):
        return (param.copy(), moment1.copy(), moment2.copy(), beta1_pow.copy(),
                beta2_pow.copy(), None if master_param is None else master_param.copy())
    t = base.dtype.type
    b1 = _scalar(beta1_tensor if beta1_tensor is not None else beta1, base.dtype)
    b2 = _scalar(beta2_tensor if beta2_tensor is not None else beta2, base.dtype)
    eps = _scalar(epsilon_tensor if epsilon_tensor is not None else epsilon, base.dtype)
    b1p, b2p = _scalar(beta1_pow, base.dtype), _scalar(beta2_pow, base.dtype)
    lr = _scalar(learning_rate, base.dtype) * t(lr_ratio)
    g = grad.astype(base.dtype, copy=False)
    lr_t = lr * np.sqrt(t(1) - b2p) / (t(1) - b1p)
    if inplace:     # the same arithmetic, written into the scope's buffers
        if decay:
            base -= lr * t(decay) * base
        m1, m2 = np.multiply(moment1, b1, out=moment1), np.multiply(moment2, b2, out=moment2)
        m1 += (t(1) - b1) * g
        m2 += (t(1) - b2) * g * g
        base -= lr_t * (m1 / (np.sqrt(m2) + eps * np.sqrt(t(1) - b2p)))
        new_value = base
    else:
        if decay:
            base = base - lr * t(decay) * base
        m1 = b1 * moment1 + (t(1) - b1) * g
        m2 = b2 * moment2 + (t(1) - b2) * g * g
        new_value = base - lr_t * (m1 / (np.sqrt(m2) + eps * np.sqrt(t(1) - b2p)))
    if use_global_beta_pow:
        b1p_out, b2p_out = beta1_pow.copy(), beta2_pow.copy()
    else:
        b1p_out = (beta1_pow * b1).astype(beta1_pow.dtype)
        b2p_out = (beta2_pow * b2).astype(beta2_pow.dtype)
    param_out, master_out = _result(param, master_param, new_value)
    return param_out, m1, m2, b1p_out, b2p_out, master_out


adam = register_op("adam", inputs=_ADAM_INPUTS, outputs=_ADAM_OUTPUTS, attrs=_ADAM_ATTRS,
                   differentiable=False, infer_shape=_adam_shape, never_raises=True)


@adam.def_kernel
def adam_kernel(*inputs, beta1, beta2, epsilon, use_global_beta_pow):
    return _adam_update(*inputs, beta1=beta1, beta2=beta2, epsilon=epsilon,
                        use_global_beta_pow=use_global_beta_pow)


@adam.def_inplace_kernel(ParamOut="Param", Moment1Out="Moment1", Moment2Out="Moment2")
def adam_inplace(*inputs, beta1, beta2, epsilon, use_global_beta_pow):
    return _adam_update(*inputs, beta1=beta1, beta2=beta2, epsilon=epsilon,
                        use_global_beta_pow=use_global_beta_pow, inplace=True)


adamw = register_op("adamw", inputs=_ADAM_INPUTS, outputs=_ADAM_OUTPUTS,
                    attrs={**_ADAM_ATTRS, "lr_ratio": 1.0, "coeff": 0.01, "with_decay": False},
                    differentiable=False, infer_shape=_adam_shape, never_raises=True)


@adamw.def_kernel
def adamw_kernel(*inputs, beta1, beta2, epsilon, use_global_beta_pow, lr_ratio, coeff,
                 with_decay):
    """Adam with decoupled weight decay: param -= lr * lr_ratio * coeff * param first."""
    return _adam_update(*inputs, beta1=beta1, beta2=beta2, epsilon=epsilon,
                        use_global_beta_pow=use_global_beta_pow,
                        decay=coeff if with_decay else 0.0, lr_ratio=lr_ratio)


@adamw.def_inplace_kernel(ParamOut="Param", Moment1Out="Moment1", Moment2Out="Moment2")
def adamw_inplace(*inputs, beta1, beta2, epsilon, use_global_beta_pow, lr_ratio, coeff,
                  with_decay):
    return _adam_update(*inputs, beta1=beta1, beta2=beta2, epsilon=epsilon,
                        use_global_beta_pow=use_global_beta_pow,
                        decay=coeff if with_decay else 0.0, lr_ratio=lr_ratio, inplace=True)


# -- adagrad -------------------------------------------------------------------------------------
adagrad = register_op(
    "adagrad", inputs=["Param", "Grad", "Moment", "LearningRate", "MasterParam?"],
    outputs=["ParamOut", "MomentOut", "MasterParamOut?"],
    attrs={"epsilon": 1e-6, "multi_precision": False},
    differentiable=False, infer_shape=_like_inputs(0, 2, 4), never_raises=True)


def _adagrad_update(param, grad, moment, learning_rate, master_param, *, epsilon, inplace):
    """``moment += grad²``; ``param -= lr * grad / (sqrt(moment) + epsilon)``."""
    base = param if master_param is None else master_param
    g = grad.astype(base.dtype, copy=False)
    lr, eps = _scalar(learning_rate, base.dtype), base.dtype.type(epsilon)
    if inplace and master_param is None and moment.dtype == param.dtype:
        moment += g * g
        param -= lr * g / (np.sqrt(moment) + eps)
        return param, moment, None
    moment_out = moment + g * g
    new_value = base - lr * g / (np.sqrt(moment_out) + eps)
    param_out, master_out = _result(param, master_param, new_value)
    return param_out, moment_out, master_out


@adagrad.def_kernel
def adagrad_kernel(param, grad, moment, learning_rate, master_param=None, *, epsilon):
    return _adagrad_update(param, grad, moment, learning_rate, master_param, epsilon=epsilon,
                           inplace=False)


@adagrad.def_inplace_kernel(ParamOut="Param", MomentOut="Moment")
def adagrad_inplace(param, grad, moment, learning_rate, master_param=None, *, epsilon):
    return _adagrad_update(param, grad, moment, learning_rate, master_param, epsilon=epsilon,
                           inplace=True)
