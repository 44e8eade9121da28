"""einsum for both editions (torch.einsum, np.einsum): the equation's
subscripts ('...' included, the output implicit or given), a subscript
repeated in one operand taken as its diagonal, and the operands contracted
two at a time, left to right, each pair lined up as (batch, kept, summed)
and multiplied by one batched matrix product (float32) or a broadcast
product and a sum (other types). Intermediate arrays have at most the rank
of the operands and the output, so the engine's 4 dimensions reach as far
as the operands do. What it pushes is the edition's ops, through `lib`:

    lib.permute(x, order), lib.expand(x, shape), lib.sum(x, dims),
    lib.bmm(a, b) (3-D float32), lib.arange(n, like), lib.error (the
    exception class the edition raises)

Threading: the frontend thread, as every op of the editions.
"""


def _spec(equation, operands, error):
    """The subscripts of each operand and of the output, '.' standing for
    each dim '...' covers."""
    inputs, arrow, output = equation.replace(" ", "").partition("->")
    terms = inputs.split(",")
    if len(terms) != len(operands):
        raise error("einsum(): %d operands for an equation of %d" % (len(operands), len(terms)))
    ellipsis_dims = 0
    subs = []
    for term, op in zip(terms, operands):
        if "..." in term:
            extra = op.ndim - (len(term) - 3)
            ellipsis_dims = max(ellipsis_dims, extra)
            term = term.replace("...", "." * extra)
        if len(term) != op.ndim:
            raise error("einsum(): the number of subscripts in the equation (%d) does not match the number of "
                        "dimensions (%d) for operand %d" % (len(term), op.ndim, len(subs)))
        subs.append(term)
    if arrow:
        out = output.replace("...", "." * ellipsis_dims)
    else:
        counts = {}
        for term in subs:
            for c in term:
                counts[c] = counts.get(c, 0) + 1
        out = "." * ellipsis_dims + "".join(sorted(c for c, k in counts.items() if k == 1 and c != "."))
    return subs, out, ellipsis_dims


def einsum(equation, operands, lib):
    """The einsum of the operands by the equation, with lib's ops (above)."""
    subs, out, ell = _spec(equation, operands, lib.error)
    names = [chr(0x100 + i) for i in range(ell)]  # the '...' dims, apart from any letter

    def named(term):
        k = term.count(".")
        return [names[ell - k + i] for i in range(k)] + [c for c in term if c != "."]

    out_letters = named(out)
    ops = []
    for term, x in zip(subs, operands):
        t = named(term)
        while len(set(t)) != len(t):  # a repeated subscript: the diagonal
            c = next(c for c in t if t.count(c) > 1)
            i = t.index(c)
            j = t.index(c, i + 1)
            x = _diagonal(x, i, j, lib)
            t = [s for k, s in enumerate(t) if k not in (i, j)] + [c]
        ops.append((t, x))
    for c in out_letters:
        if not any(c in t for t, _ in ops):
            raise lib.error("einsum(): output subscript %s does not appear in the equation for any input operand"
                            % c)
    ta, a = ops[0]
    for i in range(1, len(ops)):
        tb, b = ops[i]
        if i == len(ops) - 1:
            keep = out_letters
        else:
            needed = set(out_letters).union(*(set(t) for t, _ in ops[i + 1:]))
            keep = [c for c in ta + [c for c in tb if c not in ta] if c in needed]
        a, ta = _contract(ta, a, tb, b, keep, lib), keep
    # One operand left: sum what the output lacks, then its order.
    gone = [k for k, c in enumerate(ta) if c not in out_letters]
    if gone:
        a = lib.sum(a, tuple(gone))
        ta = [c for c in ta if c in out_letters]
    order = [ta.index(c) for c in out_letters]
    return lib.permute(a, order) if order != list(range(len(order))) else a


def _diagonal(x, i, j, lib):
    """x's diagonal over dims i and j, as the last dim."""
    r = lib.arange(x.shape[i], x)
    index = [slice(None)] * x.ndim
    index[i], index[j] = r, r
    picked = x[tuple(index)]  # advanced indexing puts the picked dim first
    return lib.permute(picked, list(range(1, picked.ndim)) + [0])


def _contract(ta, a, tb, b, keep, lib):
    """The product of a (subscripts ta) and b (tb) summed over the subscripts
    not in keep, with keep's subscripts in keep's order."""
    alone = [k for k, c in enumerate(ta) if c not in tb and c not in keep]
    if alone:  # on one side only and not kept: summed there first
        a, ta = lib.sum(a, tuple(alone)), [c for k, c in enumerate(ta) if k not in alone]
    alone = [k for k, c in enumerate(tb) if c not in ta and c not in keep]
    if alone:
        b, tb = lib.sum(b, tuple(alone)), [c for k, c in enumerate(tb) if k not in alone]
    batch = [c for c in ta if c in tb and c in keep]
    summed = [c for c in ta if c in tb and c not in keep]
    left = [c for c in ta if c not in tb]
    right = [c for c in tb if c not in ta]

    def size(c):
        return max(a.shape[ta.index(c)] if c in ta else 1, b.shape[tb.index(c)] if c in tb else 1)

    def lined(x, t, groups):
        order = [t.index(c) for g in groups for c in g]
        x = lib.permute(x, order) if order != list(range(len(order))) else x
        x = lib.expand(x, tuple(size(c) for g in groups for c in g))  # a broadcast dim of 1 stretched
        n = []
        for g in groups:
            k = 1
            for c in g:
                k *= size(c)
            n.append(k)
        return x.reshape(tuple(n))

    a3, b3 = lined(a, ta, (batch, left, summed)), lined(b, tb, (batch, summed, right))
    if str(a3.dtype).endswith("float32") and str(b3.dtype).endswith("float32"):
        out = lib.bmm(a3, b3)
    else:
        (nb, nl, ns), nr = a3.shape, b3.shape[2]
        out = lib.sum(a3.reshape((nb, nl, ns, 1)) * b3.reshape((nb, 1, ns, nr)), (2,))
    letters = batch + left + right
    out = out.reshape(tuple(size(c) for c in letters))
    order = [letters.index(c) for c in keep]
    return lib.permute(out, order) if order != list(range(len(order))) else out
