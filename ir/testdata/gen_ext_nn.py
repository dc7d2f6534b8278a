# Cases for ir/ops_ext_nn.go; exec'd by gen_ext.py (shares case(), r(), ...).

for dt in (f32, f64):
    x = r(2, 3, 4, 5, dtype=dt)
    for mode in ("constant", "reflect", "replicate", "circular"):
        case("pad", lambda a, p, m, v: F.pad(a, p, m, v) if m == "constant" else F.pad(a, p, m), x, [1, 2, 2, 1], mode, None)
    case("pad", lambda a, p, m, v: F.pad(a, p, m, v), x, [1, 0, 0, 2, 1, 1], "constant", 1.5)
    case("pad", lambda a, p, m, v: F.pad(a, p, m, v), x, [-1, 2], "constant", None)
    case("pad", lambda a, p, m, v: F.pad(a, p, m), r(2, 3, 5, dtype=dt), [2, 3], "reflect", None)
    case("pad", lambda a, p, m, v: F.pad(a, p, m), x, [5, 0], "reflect", None)
    case("conv1d", lambda a, w, b, s, p, d, g: F.conv1d(a, w, b, s, p, d, g), r(2, 4, 9, dtype=dt), r(6, 2, 3, dtype=dt), r(6, dtype=dt), 2, 1, 2, 2)
    case("conv3d", lambda a, w, b, s, p, d, g: F.conv3d(a, w, b, s, p, d, g), r(2, 2, 5, 6, 5, dtype=dt), r(4, 2, 3, 2, 3, dtype=dt), r(4, dtype=dt), [2, 1, 1], [1, 0, 1], [1, 2, 1], 1)
    case("conv3d", lambda a, w, b, s, p, d, g: F.conv3d(a, w, b, s, p, d, g), r(1, 4, 4, 4, 4, dtype=dt), r(4, 2, 2, 2, 2, dtype=dt), None, 1, 0, 1, 2)
    case("conv_transpose2d", lambda a, w, b, s, p, op, g, d: F.conv_transpose2d(a, w, b, s, p, op, g, d),
         r(2, 4, 5, 4, dtype=dt), r(4, 3, 3, 2, dtype=dt), r(6, dtype=dt), [2, 1], [1, 0], [1, 0], 2, [1, 2])
    case("conv_transpose2d", lambda a, w, b, s, p, op, g, d: F.conv_transpose2d(a, w, b, s, p, op, g, d),
         r(1, 2, 3, 3, dtype=dt), r(2, 3, 3, 3, dtype=dt), None, 1, 2, 0, 1, 1)
    case("conv_transpose1d", lambda a, w, b, s, p, op, g, d: F.conv_transpose1d(a, w, b, s, p, op, g, d),
         r(2, 3, 6, dtype=dt), r(3, 2, 4, dtype=dt), r(2, dtype=dt), 3, 1, 2, 1, 1)
    case("convolution", lambda a, w, b, s, p, d, t, op, g: torch.ops.aten.convolution(a, w, b, s, p, d, t, op, g),
         r(2, 4, 6, 6, dtype=dt), r(4, 2, 3, 3, dtype=dt), r(4, dtype=dt), [1, 2], [1, 1], [1, 1], False, [0, 0], 2)
    case("convolution", lambda a, w, b, s, p, d, t, op, g: torch.ops.aten.convolution(a, w, b, s, p, d, t, op, g),
         r(2, 3, 4, 4, dtype=dt), r(3, 2, 2, 2, dtype=dt), None, [2, 2], [0, 0], [1, 1], True, [1, 1], 1)
    case("pixel_shuffle", F.pixel_shuffle, r(2, 8, 3, 2, dtype=dt), 2)
    case("pixel_unshuffle", F.pixel_unshuffle, r(2, 2, 4, 6, dtype=dt), 2)
    case("diagonal", torch.diagonal, r(3, 4, 5, dtype=dt), 1, 0, 2)
    case("diagonal", torch.diagonal, r(4, 3, dtype=dt), -1, 0, 1)
    case("diagonal", torch.diagonal, r(4, 3, dtype=dt), 0, 1, 0)
    case("repeat", lambda a, rp: a.repeat(*rp), r(2, 3, dtype=dt), [2, 1, 3])
    case("cdist", lambda a, b, p, m: torch.cdist(a, b, p), r(2, 4, 3, dtype=dt), r(2, 5, 3, dtype=dt), 2.0, None)
    case("cdist", lambda a, b, p, m: torch.cdist(a, b, p), r(4, 3, dtype=dt), r(5, 3, dtype=dt), 1.0, None)
    case("cdist", lambda a, b, p, m: torch.cdist(a, b, p), r(4, 3, dtype=dt), r(5, 3, dtype=dt), 3.0, None)
    case("cosine_similarity", F.cosine_similarity, r(4, 6, dtype=dt), r(4, 6, dtype=dt), 1, 1e-8)
    case("cosine_similarity", F.cosine_similarity, r(3, 5, 2, dtype=dt), r(5, 1, dtype=dt), 1, 1e-8)
    case("normalize", lambda a, p, d, e, o: F.normalize(a, p, d, e), r(4, 6, dtype=dt), 2.0, 1, 1e-12, None)
    case("normalize", lambda a, p, d, e, o: F.normalize(a, p, d, e), r(4, 6, dtype=dt), 1.0, 0, 1e-12, None)
    case("take_along_dim", torch.take_along_dim, r(3, 4, dtype=dt), torch.tensor([[0], [3], [1]]), 1)
    case("take_along_dim", torch.take_along_dim, r(3, 4, dtype=dt), torch.tensor([5, 0, 11]), None)
    q, k, v = r(2, 3, 4, 8, dtype=dt), r(2, 3, 5, 8, dtype=dt), r(2, 3, 5, 6, dtype=dt)
    def sdpa(q, k, v, m, p, c, s):
        sc = s if s is not None else 1 / math.sqrt(q.size(-1))
        att = q @ k.transpose(-2, -1) * sc
        if c:
            m = torch.ones(q.size(-2), k.size(-2), dtype=torch.bool).tril()
        if m is not None:
            att = att.masked_fill(~m, float("-inf")) if m.dtype == torch.bool else att + m
        return torch.softmax(att, -1) @ v
    case("scaled_dot_product_attention", sdpa, q, k, v, None, 0.0, False, None)
    case("scaled_dot_product_attention", sdpa, q, r(2, 3, 4, 8, dtype=dt), r(2, 3, 4, 6, dtype=dt), None, 0.0, True, None)
    case("scaled_dot_product_attention", sdpa, q, k, v, r(4, 5, dtype=dt), 0.0, False, 0.3)
    case("scaled_dot_product_attention", sdpa, q, k, v, torch.rand(4, 5) > 0.3, 0.0, False, None, grad=False)

x = r(2, 3, 5, 4)
for size, sf, mode, ac, rc in [((10, 8), None, "nearest", None, None), ((7, 3), None, "nearest", None, None),
                               (None, 1.5, "nearest", None, None), (None, [2.0, 1.7], "nearest", None, True),
                               ((10, 8), None, "bilinear", False, None), ((7, 3), None, "bilinear", True, None),
                               (None, 2.0, "bilinear", False, None), (None, 1.3, "bilinear", True, None),
                               (None, 0.6, "bilinear", False, None)]:
    case("interpolate", lambda a, s, f, m, c, rcf, aa: F.interpolate(a, s, f, m, c, rcf, aa), x, list(size) if size else None, sf, mode, ac, rc, False)
case("interpolate", lambda a, s, f, m, c, rcf, aa: F.interpolate(a, s, f, m, c, rcf, aa), r(2, 3, 5), [9], None, "nearest", None, None, False)
case("interpolate", lambda a, s, f, m, c, rcf, aa: F.interpolate(a, s, f, m, c, rcf, aa), r(2, 3, 5), [9], None, "linear", False, None, False)
case("scatter", lambda s, d, i, src, v, red: s.scatter(d, i, src), r(3, 5), 1, torch.tensor([[0, 4], [1, 2], [3, 3]]), r(3, 2), None, None)
case("scatter", lambda s, d, i, src, v, red: s.scatter(d, i, v), r(3, 5), 0, torch.tensor([[0, 1, 2, 0, 1]]), None, 2.5, None, grad=False)
case("scatter", lambda s, d, i, src, v, red: s.scatter(d, i, src, reduce=red), r(3, 5), 1, torch.tensor([[0, 0], [1, 2], [3, 3]]), r(3, 2), None, "add", grad=False)
case("scatter_reduce", lambda s, d, i, src, red, inc: s.scatter_reduce(d, i, src, red, include_self=inc), r(3, 5), 1, torch.tensor([[0, 0], [1, 2], [3, 3]]), r(3, 2), "sum", True, grad=False)
case("fill", lambda s, v: torch.ops.aten.fill(s, v), r(2, 3), 1.25, grad=False)
case("repeat", lambda a, rp: a.repeat(*rp), torch.tensor([1, 2, 3]), [2, 2], grad=False)
case("pad", lambda a, p, m, v: F.pad(a, p, m, v), torch.tensor([[1, 2], [3, 4]]), [1, 1], "constant", 9, grad=False)

# 1-D and adaptive pooling, local response norm, RNN cells.
for dt in (f32, f64):
    x = r(2, 3, 11, dtype=dt)
    case("max_pool1d", lambda a, k, s, p, d, c, ri: F.max_pool1d(a, k, s, p, d, c, ri), x, 3, 2, 1, 1, False, False)
    case("max_pool1d", lambda a, k, s, p, d, c, ri: F.max_pool1d(a, k, s, p, d, c, ri), x, 2, 3, 1, 2, True, False)
    case("max_pool1d", lambda a, k, s, p, d, c, ri: F.max_pool1d(a, k, s, p, d, c, ri), x, 4, None, 0, 1, True, False)
    case("avg_pool1d", lambda a, k, s, p, c, ci: F.avg_pool1d(a, k, s, p, c, ci), x, 3, 2, 1, False, True)
    case("avg_pool1d", lambda a, k, s, p, c, ci: F.avg_pool1d(a, k, s, p, c, ci), x, 3, 2, 1, True, False)
    case("adaptive_avg_pool1d", F.adaptive_avg_pool1d, x, 4)
    case("adaptive_max_pool1d", lambda a, o, ri: F.adaptive_max_pool1d(a, o, ri), x, 4, False)
    case("adaptive_max_pool2d", lambda a, o, ri: F.adaptive_max_pool2d(a, o, ri), r(2, 3, 7, 5, dtype=dt), [3, 2], False)
    case("adaptive_max_pool2d", lambda a, o, ri: F.adaptive_max_pool2d(a, o, ri), r(2, 3, 6, 6, dtype=dt), 3, False)
    case("local_response_norm", F.local_response_norm, r(2, 7, 3, 4, dtype=dt), 3, 1e-2, 0.75, 1.0)
    case("local_response_norm", F.local_response_norm, r(2, 5, 6, dtype=dt), 4, 0.5, 0.6, 2.0)
    cell = torch.nn.GRUCell(5, 4).to(dt)
    xi, h = r(3, 5, dtype=dt), r(3, 4, dtype=dt)
    case("gru_cell", torch.gru_cell, xi, h, cell.weight_ih.detach(), cell.weight_hh.detach(), cell.bias_ih.detach(), cell.bias_hh.detach())
    lc = torch.nn.LSTMCell(5, 4).to(dt)
    c = r(3, 4, dtype=dt)
    case("lstm_cell", lambda a, hc, wi, wh, bi, bh: torch.lstm_cell(a, hc, wi, wh, bi, bh), xi, [h, c], lc.weight_ih.detach(), lc.weight_hh.detach(), lc.bias_ih.detach(), lc.bias_hh.detach())
    case("lstm_cell", lambda a, hc, wi, wh, bi, bh: torch.lstm_cell(a, hc, wi, wh, bi, bh), xi, [h, c], lc.weight_ih.detach(), lc.weight_hh.detach(), None, None)
case("adaptive_max_pool2d", lambda a, o, ri: F.adaptive_max_pool2d(a, o, ri), torch.tensor([[[[1.0, float("nan")], [3.0, 4.0]]]]), 1, False, grad=False)

# MultiheadAttention's forward.
def mha(q, k, v, H, inw, inb, ow, ob, kpm, nw, am, avg, bf):
    if bf:
        q, k, v = q.transpose(0, 1), k.transpose(0, 1), v.transpose(0, 1)
    out, w = F.multi_head_attention_forward(q, k, v, q.size(-1), H, inw, inb, None, None, False, 0.0, ow, ob,
                                            training=False, key_padding_mask=kpm, need_weights=True,
                                            attn_mask=am, average_attn_weights=avg)
    if bf:
        out = out.transpose(0, 1)
    return out, w


for dt in (f32, f64):
    E, H = 8, 2
    inw, inb, ow, ob = r(3 * E, E, dtype=dt, lo=-0.5, hi=0.5), r(3 * E, dtype=dt), r(E, E, dtype=dt, lo=-0.5, hi=0.5), r(E, dtype=dt)
    q, kv = r(4, 3, E, dtype=dt), r(5, 3, E, dtype=dt)
    case("multi_head_attention", mha, q, kv, kv, H, inw, inb, ow, ob, None, True, None, True, False)
    case("multi_head_attention", mha, q, q, q, H, inw, inb, ow, ob, None, True, torch.ones(4, 4, dtype=torch.bool).triu(1), False, False)
    case("multi_head_attention", mha, r(3, 4, E, dtype=dt), r(3, 5, E, dtype=dt), r(3, 5, E, dtype=dt), H, inw, None, ow, None,
         torch.tensor([[False] * 5, [False, False, False, True, True], [False] * 4 + [True]]), True, r(4, 5, dtype=dt), True, True)

# EmbeddingBag.
def bag(x, w, off, mode, psw, inc):
    return F.embedding_bag(x, w, off, mode=mode, per_sample_weights=psw, include_last_offset=inc)


for dt in (f32, f64):
    w = r(10, 3, dtype=dt)
    idx = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9])
    off = torch.tensor([0, 4, 4, 6])
    for mode in ("sum", "mean", "max"):
        case("embedding_bag", bag, idx, w, off, mode, None, False)
        case("embedding_bag", bag, idx.view(2, 4), w, None, mode, None, False)
    case("embedding_bag", bag, idx, w, torch.tensor([0, 3, 8]), "mean", None, True)
    case("embedding_bag", bag, idx, w, off, "sum", r(8, dtype=dt), False)
case("embedding_bag", bag, torch.tensor([1, 2]), r(4, 3), torch.tensor([1]), "sum", None, False)

# Small ops.
for dt in (f32, f64):
    case("one_hot", F.one_hot, torch.tensor([[0, 3], [2, 1]]), 5, grad=False)
    case("dot", torch.dot, r(5, dtype=dt), r(5, dtype=dt))
    case("mv", torch.mv, r(3, 5, dtype=dt), r(5, dtype=dt))
    case("outer", torch.outer, r(3, dtype=dt), r(4, dtype=dt))
    case("unbind", torch.unbind, r(3, 2, 4, dtype=dt), 1)
    case("repeat_interleave", lambda a, n, d, o: torch.repeat_interleave(a, n, d), r(2, 3, dtype=dt), 2, 1, None)
    case("repeat_interleave", lambda a, n, d, o: torch.repeat_interleave(a, n, d), r(2, 3, dtype=dt), 3, None, None)
    case("threshold", F.threshold, r(3, 4, dtype=dt), 0.1, -2.0)
    case("threshold", F.threshold, special(dt), 0.5, 9.0, grad=False)
    case("softmin", lambda a, d, s, t: F.softmin(a, d, dtype=t), r(3, 4, dtype=dt), 1, 3, None)
    case("new_zeros", lambda a, *s: a.new_zeros(s), r(2, dtype=dt), 3, 2, grad=False)
    case("new_ones", lambda a, *s: a.new_ones(s), torch.tensor([1, 2]), 2, grad=False)
    case("new_full", lambda a, s, v: a.new_full(s, v), r(2, dtype=dt), [2, 2], 1.5, grad=False)
case("one_hot", F.one_hot, torch.tensor([0, 7]), 5, grad=False)

# logaddexp, xlogy, frac, diff, distances and more losses.
for dt in (f32, f64):
    x, y = r(3, 4, dtype=dt), r(4, dtype=dt)
    case("logaddexp", torch.logaddexp, x, y)
    case("logaddexp", torch.logaddexp, special(dt), special(dt).flip(0), grad=False)
    case("xlogy", torch.xlogy, x, r(3, 4, dtype=dt, lo=0.1, hi=3))
    case("xlogy", torch.xlogy, torch.tensor([0.0, 0.0, 1.0, 2.0, 0.0], dtype=dt), torch.tensor([0.0, float("nan"), 0.0, 3.0, -1.0], dtype=dt), grad=False)
    case("frac", torch.frac, r(3, 4, dtype=dt, lo=-5, hi=5))
    case("diff", lambda a, n, d, p, ap: torch.diff(a, n, d), r(3, 5, dtype=dt), 1, -1, None, None)
    case("diff", lambda a, n, d, p, ap: torch.diff(a, n, d), r(4, 3, dtype=dt), 2, 0, None, None)
    case("pairwise_distance", F.pairwise_distance, r(4, 5, dtype=dt), r(4, 5, dtype=dt), 2.0, 1e-6, False)
    case("pairwise_distance", F.pairwise_distance, r(4, 5, dtype=dt), r(5, dtype=dt), 1.0, 1e-6, True)
    t = torch.tensor([1.0, -1.0, 1.0, -1.0], dtype=dt)
    for red in ("mean", "sum", "none"):
        case("margin_ranking_loss", lambda a, b, c, m, rd: F.margin_ranking_loss(a, b, c, m, reduction=rd), r(4, dtype=dt), r(4, dtype=dt), t, 0.3, red)
        case("hinge_embedding_loss", lambda a, b, m, rd: F.hinge_embedding_loss(a, b, m, reduction=rd), r(4, dtype=dt), t, 0.8, red)
        case("poisson_nll_loss", lambda a, b, li, fu, e, rd: F.poisson_nll_loss(a, b, li, fu, eps=e, reduction=rd), r(4, 3, dtype=dt), r(4, 3, dtype=dt, lo=0, hi=4), True, True, 1e-8, red)
        case("poisson_nll_loss", lambda a, b, li, fu, e, rd: F.poisson_nll_loss(a, b, li, fu, eps=e, reduction=rd), r(4, 3, dtype=dt, lo=0.1, hi=2), r(4, 3, dtype=dt, lo=0, hi=4), False, False, 1e-8, red)
        case("triplet_margin_loss", lambda a, p, n, m, pp, e, sw, rd: F.triplet_margin_loss(a, p, n, m, pp, e, sw, reduction=rd),
             r(4, 5, dtype=dt), r(4, 5, dtype=dt), r(4, 5, dtype=dt), 1.0, 2, 1e-6, red == "sum", red)
case("diff", lambda a, n, d, p, ap: torch.diff(a, n, d), torch.tensor([True, False, False, True]), 1, 0, None, None, grad=False)
for size, sf, ac in [((10, 8), None, False), ((7, 3), None, True), (None, 1.3, False)]:
    case("interpolate", lambda a, s, f, m, c, rcf, aa: F.interpolate(a, s, f, m, c, rcf, aa), r(2, 3, 5, 4, dtype=f64), list(size) if size else None, sf, "bilinear", ac, None, False)

# 3-D pooling.
for dt in (f32, f64):
    x = r(2, 2, 5, 6, 7, dtype=dt)
    case("max_pool3d", lambda a, k, s, p, d, c, ri: F.max_pool3d(a, k, s, p, d, c, ri), x, [2, 3, 3], [1, 2, 2], [1, 1, 0], [1, 1, 2], False, False)
    case("avg_pool3d", lambda a, k, s, p, c, ci, do: F.avg_pool3d(a, k, s, p, c, ci, do), x, 3, 2, 1, False, True, None)
    case("avg_pool3d", lambda a, k, s, p, c, ci, do: F.avg_pool3d(a, k, s, p, c, ci, do), x, [2, 3, 3], [1, 2, 2], [1, 1, 0], False, False, None)
    case("avg_pool3d", lambda a, k, s, p, c, ci, do: F.avg_pool3d(a, k, s, p, c, ci, do), x, 2, None, 0, False, True, 5)
    case("adaptive_avg_pool3d", F.adaptive_avg_pool3d, x, [2, 3, 4])

# scatter_reduce: every reduction, with and without self, repeated and unused
# indices, int64 (mean floors), bool, NaN/inf sources, a zero in prod's
# sources, the index smaller than src; float64 cases are gradchecked.
sred = lambda s, d, i, src, red, inc: s.scatter_reduce(d, i, src, red, include_self=inc)
sidx = torch.tensor([[0, 1, 0], [2, 0, 3], [0, 1, 1]])
for red in ("sum", "prod", "mean", "amax", "amin"):
    for inc in (True, False):
        for dt in (f32, f64):
            case("scatter_reduce", sred, r(4, 3, dtype=dt), 0, sidx, r(3, 3, dtype=dt, lo=0.5, hi=2.0) * torch.tensor([1.0, -1.0, 1.0], dtype=dt), red, inc)
            case("scatter_reduce", sred, r(3, 5, dtype=dt), -1, torch.tensor([[4, 4], [0, 2], [1, 1]]), r(3, 4, dtype=dt), red, inc, grad=False)
        case("scatter_reduce", sred, torch.randint(-9, 9, (4, 3)), 0, sidx, torch.randint(-9, 9, (3, 3)), red, inc)
        case("scatter_reduce", sred, torch.rand(4, 3) > 0.5, 0, sidx, torch.rand(3, 3) > 0.5, red, inc)  # PyTorch refuses bool mean
        case("scatter_reduce", sred, torch.tensor([1.0, float("nan"), 3.0, -1.0]), 0, torch.tensor([0, 1, 2, 2, 3, 3]),
             torch.tensor([float("nan"), 2.0, float("-inf"), 5.0, float("inf"), 0.0]), red, inc, grad=False)
        case("scatter_reduce", sred, r(2, 4, dtype=f64), 1, torch.tensor([[1, 1, 3], [0, 2, 2]]),
             torch.tensor([[0.0, 1.5, 2.0], [-1.0, 0.0, 3.0]], dtype=f64), red, inc)
    case("scatter_reduce", sred, r(3, dtype=f64), 0, torch.tensor([], dtype=torch.int64), r(0, dtype=f64), red, False)
    case("scatter_reduce", sred, r(2, 2, dtype=f64), 0, torch.tensor([[5, 0]]), r(1, 2, dtype=f64), red, True)  # out of bounds

# pad: circular wraps around the input cropped by negative amounts; empty batches.
for dt in (f32, f64):
    padf = lambda a, p, m, v: F.pad(a, p, m)
    case("pad", padf, r(1, 3, 4, 4, dtype=dt), [-1, 1, -2, 1], "circular", None)
    case("pad", padf, r(1, 2, 6, dtype=dt), [2, -1], "circular", None)
    case("pad", padf, r(1, 2, 6, dtype=dt), [-2, 3], "circular", None)
    case("pad", padf, r(0, 3, 3, dtype=dt), [1, 2], "circular", None)
    case("pad", padf, r(0, 3, 3, dtype=dt), [1, 1], "reflect", None)
    case("pad", padf, r(0, 3, 3, dtype=dt), [1, 2], "replicate", None)
case("pad", lambda a, p, m, v: F.pad(a, p, m), torch.randint(-9, 9, (1, 2, 6)), [2, -1], "circular", None)

# interpolate: area (adaptive average pooling), bicubic (A = -0.75, taps
# clamped at the borders, unclamped source coordinate), trilinear.
interp = lambda a, s, f, m, c, rcf, aa: F.interpolate(a, s, f, m, c, rcf, aa)
for dt in (f32, f64):
    for x, size in ((r(2, 3, 7, dtype=dt), [3]), (r(2, 2, 5, 6, dtype=dt), [3, 4]), (r(1, 2, 4, 5, 3, dtype=dt), [2, 3, 5])):
        case("interpolate", interp, x, size, None, "area", None, None, False)
        case("interpolate", interp, x, None, 1.7, "area", None, None, False)
        case("interpolate", interp, x, None, 0.6, "area", None, None, False)
    x = r(2, 2, 5, 4, dtype=dt)
    for size, sf, ac in (([3, 3], None, True), ([7, 9], None, False), (None, 1.7, None), (None, 0.6, True), (None, [2.0, 0.5], False), ([1, 1], None, True)):
        case("interpolate", interp, x, size, sf, "bicubic", ac, None, False)
    x = r(1, 2, 3, 4, 5, dtype=dt)
    for size, sf, ac in (([5, 5, 5], None, True), ([2, 3, 7], None, False), (None, 1.7, None), (None, 0.6, True)):
        case("interpolate", interp, x, size, sf, "trilinear", ac, None, False)
case("interpolate", interp, r(2, 3, 5), [3], None, "area", True, None, False)  # PyTorch refuses align_corners
case("interpolate", interp, r(2, 3, 5), [3], None, "bicubic", False, None, False)  # bicubic needs 4-D

# Convolutions of unbatched inputs; conv1d with padding="same" / "valid"
# (an even kernel pads the extra zero at the end).
for dt in (f32, f64):
    c1 = lambda a, w, b, s, p, d, g: F.conv1d(a, w, b, s, p, d, g)
    case("conv1d", c1, r(4, 9, dtype=dt), r(6, 2, 3, dtype=dt), r(6, dtype=dt), 1, 1, 2, 2)
    case("conv1d", c1, r(2, 4, 9, dtype=dt), r(6, 4, 4, dtype=dt), r(6, dtype=dt), 1, "same", 1, 1)
    case("conv1d", c1, r(4, 9, dtype=dt), r(6, 2, 4, dtype=dt), None, 1, "same", 3, 2)
    case("conv1d", c1, r(2, 4, 9, dtype=dt), r(6, 4, 3, dtype=dt), None, 1, "valid", 1, 1)
    case("conv2d", lambda a, w, b, s, p, d, g: F.conv2d(a, w, b, s, p, d, g), r(2, 2, 5, 6, dtype=dt), r(3, 2, 2, 3, dtype=dt), r(3, dtype=dt), 1, "same", 1, 1)
    case("conv_transpose1d", lambda a, w, b, s, p, op, g, d: F.conv_transpose1d(a, w, b, s, p, op, g, d),
         r(3, 6, dtype=dt), r(3, 2, 4, dtype=dt), r(2, dtype=dt), 3, 1, 2, 1, 1)
    case("conv_transpose2d", lambda a, w, b, s, p, op, g, d: F.conv_transpose2d(a, w, b, s, p, op, g, d),
         r(4, 5, 4, dtype=dt), r(4, 3, 3, 2, dtype=dt), r(6, dtype=dt), [2, 1], [1, 0], [1, 0], 2, [1, 2])
    case("conv3d", lambda a, w, b, s, p, d, g: F.conv3d(a, w, b, s, p, d, g), r(2, 5, 6, 5, dtype=dt), r(4, 2, 3, 2, 3, dtype=dt), r(4, dtype=dt), [2, 1, 1], [1, 0, 1], [1, 2, 1], 1)

# masked_scatter: the mask broadcasts with self (either way), source read in
# order (longer than needed), ints and bools, too short a source.
ms = lambda x, m, s: x.masked_scatter(m, s)
for dt in (f32, f64):
    case("masked_scatter", ms, r(3, 4, dtype=dt), torch.rand(3, 4) > 0.5, r(15, dtype=dt))
    case("masked_scatter", ms, r(3, 4, dtype=dt), torch.rand(4) > 0.4, r(3, 5, dtype=dt))
    case("masked_scatter", ms, r(4, dtype=dt), torch.rand(2, 4) > 0.4, r(9, dtype=dt))
    case("masked_scatter", ms, r(2, 3, dtype=dt), torch.zeros(2, 3, dtype=torch.bool), r(0, dtype=dt))
case("masked_scatter", ms, torch.randint(-9, 9, (3, 4)), torch.rand(3, 4) > 0.5, torch.randint(-9, 9, (12,)))
case("masked_scatter", ms, torch.rand(3, 4) > 0.5, torch.rand(3, 4) > 0.5, torch.rand(12) > 0.5)
case("masked_scatter", ms, r(3, 4), torch.ones(3, 4, dtype=torch.bool), r(5))  # source too short

# PyTorch 1.13's private attention op: (output, weights), weights always.
sdpa13 = lambda q, k, v, m, p, need, causal: torch._C._nn._scaled_dot_product_attention(q, k, v, m, p, need, causal)
for dt in (f32, f64):
    q, k, v = r(2, 4, 6, dtype=dt), r(2, 3, 6, dtype=dt), r(2, 3, 5, dtype=dt)
    case("_scaled_dot_product_attention", sdpa13, q, k, v, None, 0.0, True, True)
    case("_scaled_dot_product_attention", sdpa13, q, k, v, None, 0.0, False, False)
    case("_scaled_dot_product_attention", sdpa13, r(2, 2, 4, 6, dtype=dt), r(2, 2, 3, 6, dtype=dt), r(2, 2, 3, 6, dtype=dt), r(4, 3, dtype=dt), 0.0, True, False)

# conv_transpose2d whose output_padding exceeds the stride (allowed by a larger dilation).
for dt in (f32, f64):
    case("conv_transpose2d", lambda a, w, b, s, p, op, g, d: F.conv_transpose2d(a, w, b, s, p, op, g, d),
         r(2, 2, 4, 4, dtype=dt), r(2, 2, 4, 5, dtype=dt), r(4, dtype=dt), [3, 2], [1, 2], [2, 3], 2, [4, 4])
    case("conv_transpose2d", lambda a, w, b, s, p, op, g, d: F.conv_transpose2d(a, w, b, s, p, op, g, d),
         r(1, 2, 3, 3, dtype=dt), r(2, 1, 2, 2, dtype=dt), None, 1, 0, 1, 1, 2)

# conv_transpose3d (strides, padding, output_padding, groups, dilation; unbatched).
ct3 = lambda a, w, b, s, p, op, g, d: F.conv_transpose3d(a, w, b, s, p, op, g, d)
for dt in (f32, f64):
    case("conv_transpose3d", ct3, r(2, 4, 3, 2, 3, dtype=dt), r(4, 1, 2, 3, 2, dtype=dt), r(2, dtype=dt), [2, 1, 2], [1, 0, 1], [1, 0, 0], 2, [1, 2, 1])
    case("conv_transpose3d", ct3, r(2, 3, 2, 3, dtype=dt), r(2, 2, 2, 2, 2, dtype=dt), None, 1, 0, 0, 1, 1)
    case("convolution", lambda a, w, b, s, p, d, t, op, g: torch.ops.aten.convolution(a, w, b, s, p, d, t, op, g),
         r(1, 2, 3, 3, 2, dtype=dt), r(2, 3, 2, 2, 2, dtype=dt), r(3, dtype=dt), [2, 2, 1], [0, 1, 0], [1, 1, 1], True, [1, 0, 0], 1)
