"""The box refiner: a small CNN that takes a second look at every detector box, from the camera's own pixels.

Why: the detector reads a 1280x720 frame at about half its size, where a tile is 20-26 px, and its box edges
are off by 3.5 px (one standard deviation) on tiles about 50 px wide in the frame: most boxes overlap their tile
by 0.82-0.86 IoU, which is what held the synthetic mAP50-95 down (models/README.md). Its scores rank badly too:
a face-down tile found at IoU 0.5 has a score anywhere from 0.01 to 0.9, among hundreds of boxes on racks, arms
and hidden tiles, so face-down AP50 stayed near 0.89 where 96 % of those tiles were found. The refiner looks at
the square of REFINE_MARGIN x the box's long side around it, cut from the frame at full resolution
(``vision.tile_model.crop_square``), and says three things: where the tile's four edges are in that square,
whether the box holds a face-up tile, a face-down tile or none (``FACE_CLASSES``), and how well its own edges
will fit that tile (the IoU it expects).

Data: every labelled tile of the rendered training frames, close-up photos and haitaks training photos, seen
through two boxes jittered from the truth (sizes and shifts the detector has not made yet), every box the
detector gives at the evaluation's low threshold (CANDIDATE_CONF), and in the rendered frames and close-ups the
boxes ``TileModel.look_beside`` would propose where rows of face-down tiles go on (``beside_samples``), each
labelled by the tile it overlaps most: a tile at IoU POSITIVE_IOU or more is its face, under NEGATIVE_IOU none,
between untaught (it may hold a tile the refiner can find). Learning from synthetic frames alone, it moved real
photos' boxes away from their tiles (models/README.md), so the photos are not optional where ../shared has them.
Needs torch (the ``train`` extra).
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn
from tqdm import tqdm

from datasets import real
from datasets.budget import cached, start_run, train_to_budget
from datasets.folded_norms import freeze, start_from
from vision.boxes import iou_matrix, mostly_inside, paired_iou
from vision.photo import read_photo
from vision.tile_model import (
    CROP_MARGIN,
    REFINE_MARGIN,
    REFINE_SIZE,
    TileModel,
    crop_square,
    mirror_edges,
    row_continuations,
    square_around,
)

#: Jitter of the made-up input boxes, as fractions of the true box's side: centre shift and log-size spread
#: (the detector's own boxes are off by about 0.07 of a side, one standard deviation).
SHIFT_SD, SIZE_SD = 0.07, 0.10
#: Every 8th haitaks training photo judges the refiner on real photos instead of teaching it (the haitaks test
#: photos stay unseen); the others are shown PHOTO_REPEAT times an epoch.
HAITAKS_VAL_EVERY, PHOTO_REPEAT = 8, 4
#: The detector's boxes the refiner learns from: all down to this score, as the evaluation ranks them.
CANDIDATE_CONF = 0.01
#: A box overlapping a tile this much holds it; under NEGATIVE_IOU it holds none.
POSITIVE_IOU, NEGATIVE_IOU = 0.5, 0.3
#: Face targets: up, down, none; UNTAUGHT leaves a box out of the face loss.
FACE_CLASSES = ("up", "down", "none")
NONE, UNTAUGHT = 2, -1
#: The edges' loss (smooth L1 on fractions of the crop, errors of a few hundredths) weighed against the face's
#: cross-entropy and the fit's (``--edge-weight``).
EDGE_WEIGHT = 4.0


class BoxNet(nn.Module):
    """Five 3x3 conv layers (three stride-2) down to 6x6, kept spatial (pooling would throw away where the edges
    are), then two linear layers to the four edges, and two more to the face and the expected fit."""

    #: (in, out, stride) of each conv layer
    CHANS = ((3, 16, 2), (16, 32, 1), (32, 48, 2), (48, 64, 1), (64, 64, 2))

    def __init__(self) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        for cin, cout, stride in self.CHANS:
            layers += [nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]
        self.features = nn.Sequential(*layers)
        flat = self.CHANS[-1][1] * (-(-REFINE_SIZE // 8)) ** 2
        self.edges = nn.Sequential(nn.Flatten(), nn.Linear(flat, 128), nn.ReLU(inplace=True), nn.Linear(128, 4))
        self.judge = nn.Sequential(nn.Flatten(), nn.Linear(flat, 64), nn.ReLU(inplace=True),
                                   nn.Linear(64, len(FACE_CLASSES) + 1))

    def raw(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """BGR crops 0..255 (N, 3, S, S) -> edges x1, y1, x2, y2 as fractions of the crop from its centre, face
        logits (up, down, none) and the logit of the IoU the edges are expected to have with the tile."""
        f = self.features(x / 255.0)
        j = self.judge(f)
        return self.edges(f), j[:, :len(FACE_CLASSES)], j[:, len(FACE_CLASSES)]

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """As ``raw``, with the face as probabilities and the fit as an IoU (what the runtime reads)."""
        edges, faces, fit = self.raw(x)
        return edges, torch.softmax(faces, dim=1), torch.sigmoid(fit)


def _jittered(box: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    w, h = box[2] - box[0], box[3] - box[1]
    cx = (box[0] + box[2]) / 2 + rng.normal(0, SHIFT_SD) * w
    cy = (box[1] + box[3]) / 2 + rng.normal(0, SHIFT_SD) * h
    w, h = w * math.exp(rng.normal(0, SIZE_SD)), h * math.exp(rng.normal(0, SIZE_SD))
    return np.array([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2])


def targets(inputs: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """The true edges (N, 4) as fractions of each input box's refining square, measured from its centre."""
    out = np.empty((len(inputs), 4), np.float32)
    for i, (b, t) in enumerate(zip(inputs, truth, strict=True)):
        cx, cy, side = square_around(tuple(b), REFINE_MARGIN)
        out[i] = [(t[0] - cx) / side, (t[1] - cy) / side, (t[2] - cx) / side, (t[3] - cy) / side]
    return out


def face_target(iou: float, face: int, found_face: int, faces_only: bool) -> int:
    """What a detector box should be read as, from its best IoU with a labelled tile of face ``face``. In a photo
    labelled with tile faces only (``faces_only``) a box the detector called a back, over no label, may be an
    unlabelled back: untaught."""
    if iou >= POSITIVE_IOU:
        return face
    if iou >= NEGATIVE_IOU or (faces_only and found_face == 1):
        return UNTAUGHT
    return NONE


def _views(img: np.ndarray, found: tuple[np.ndarray, np.ndarray], truth: np.ndarray, faces: np.ndarray,
           rng: np.random.Generator, jitters: int, out: tuple[list, list, list, list], faces_only: bool = False
           ) -> None:
    """Append to ``out`` (crops, input boxes, true boxes or NaN, face targets) each true tile seen through
    ``jitters`` boxes jittered from it, and every box the detector found (``found``: boxes, faces)."""
    boxes, found_faces = found
    iou = iou_matrix(boxes, truth)
    extra = REFINE_MARGIN / CROP_MARGIN
    views = [(_jittered(t, rng), t, int(f)) for t, f in zip(truth, faces, strict=True) for _ in range(jitters)]
    for b, ff, row in zip(boxes, found_faces, iou, strict=True):
        j = int(row.argmax()) if len(truth) else -1
        best = float(row[j]) if j >= 0 else 0.0
        t = truth[j] if best >= NEGATIVE_IOU else np.full(4, np.nan)
        views.append((b, t, face_target(best, int(faces[j]) if j >= 0 else NONE, int(ff), faces_only)))
    for b, t, f in views:
        out[0].append(crop_square(img, tuple(b), REFINE_SIZE, extra))
        out[1].append(b)
        out[2].append(t)
        out[3].append(f)


def _stacked(out: tuple[list, list, list, list]) -> dict[str, np.ndarray]:
    """Crops x (N, S, S, 3), edge targets y (N, 4; NaN where the box holds no tile), face targets f (N,), and
    the input boxes in the same terms as the targets, b0."""
    inputs = np.array(out[1], float).reshape(-1, 4)
    return {"x": np.stack(out[0]) if out[0] else np.zeros((0, REFINE_SIZE, REFINE_SIZE, 3), np.uint8),
            "y": targets(inputs, np.array(out[2], float).reshape(-1, 4)), "f": np.array(out[3], np.int8),
            "b0": targets(inputs, inputs)}


def _rendered(root: Path, split: str, limit: int | None) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(image, true boxes, face targets) of each frame of a rendered split, with a progress bar."""
    for mp in tqdm(sorted((root / "meta" / split).glob("*.json"))[:limit], desc=f"refiner {root.name} {split}",
                   unit="img"):
        meta = json.loads(mp.read_text())
        img = cv2.imread(str(root / "images" / split / (mp.stem + ".jpg")))
        truth = np.array([t["box"] for t in meta["tiles"]], float).reshape(-1, 4)
        yield img, truth, np.array([FACE_CLASSES.index(t["face"]) for t in meta["tiles"]], int)


def samples(root: Path, split: str, model: TileModel, rng: np.random.Generator, jitters: int = 2,
            limit: int | None = None) -> dict[str, np.ndarray]:
    """Every labelled tile of a rendered split through ``jitters`` jittered boxes, and every box the detector
    finds there down to CANDIDATE_CONF, read as ``detect`` reads the frame (``_stacked``)."""
    out: tuple[list, list, list, list] = ([], [], [], [])
    for img, truth, faces in _rendered(root, split, limit):
        boxes, cls, _ = model.frame_boxes(img, conf=(CANDIDATE_CONF, CANDIDATE_CONF))
        _views(img, (boxes, cls), truth, faces, rng, jitters, out)
    return _stacked(out)


def beside_samples(root: Path, split: str, rng: np.random.Generator, limit: int | None = None
                   ) -> dict[str, np.ndarray]:
    """Boxes where the rows of true face-down tiles go on (``row_continuations``), jittered as the detector's
    boxes are, labelled by the tile each overlaps most: what ``TileModel.look_beside`` asks the refiner to judge.
    Inside a row they land on the next tile; past its end, on felt, a rack or a tile they only graze."""
    out: tuple[list, list, list, list] = ([], [], [], [])
    for img, truth, faces in _rendered(root, split, limit):
        rows = row_continuations(truth[faces == FACE_CLASSES.index("down")])
        boxes = mostly_inside(np.array([_jittered(b, rng) for b in rows]), *img.shape[1::-1])
        _views(img, (boxes, np.full(len(boxes), NONE)), truth, faces, rng, 0, out)
    return _stacked(out)


def photo_samples(items: list, model: TileModel, rng: np.random.Generator, jitters: int = 2
                  ) -> dict[str, np.ndarray]:
    """The same from real photos with true boxes of tile faces (haitaks), each read as ``mahj detect`` reads a
    photo: crops are cut from the photo at the aspect ratio it was read at, which is where the refiner will see
    it, and the boxes are all the detector finds at that aspect down to CANDIDATE_CONF."""
    out: tuple[list, list, list, list] = ([], [], [], [])
    for path, boxes in tqdm(items, desc="refiner photos", unit="img"):
        img, truth, _, _ = real.haitaks_truth(path, boxes)
        reading = read_photo(model, img)
        sx, sy = reading.scale
        found, cls, _ = model.frame_boxes(reading.image, conf=(CANDIDATE_CONF, CANDIDATE_CONF))
        _views(reading.image, (found, cls), truth * [sx, sy, sx, sy], np.zeros(len(truth), int), rng, jitters,
               out, faces_only=True)
    return _stacked(out)


def _keyed(parts: dict[str, dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """One flat set of arrays from several parts' (``xt``, ``yt``, ... for part ``t``), as the samples file keeps
    them."""
    return {k + part: v for part, arrays in parts.items() for k, v in arrays.items()}


def flip(x: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One of the square's eight symmetries for each crop, its edges moved to match, plus colour and blur."""
    x, y = x.copy(), y.copy()
    for i in range(len(x)):
        for axis in (0, 1):                         # mirror left-right, upside down
            if rng.random() < 0.5:
                x[i] = x[i, :, ::-1] if axis == 0 else x[i, ::-1]
                y[i] = mirror_edges(y[i:i + 1], axis)[0]
        if rng.random() < 0.5:                      # transpose: x and y trade places
            x[i] = x[i].transpose(1, 0, 2)
            y[i] = y[i, [1, 0, 3, 2]]
        if rng.random() < 0.2:
            x[i] = cv2.GaussianBlur(x[i], (0, 0), rng.uniform(0.4, 1.0))
    f = x.astype(np.float32) * rng.uniform(0.75, 1.25, (len(x), 1, 1, 3)) + rng.uniform(-20, 20, (len(x), 1, 1, 1))
    return np.clip(f, 0, 255), y


def as_tensor(x: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2), np.float32))


def ranking_ap(holds: np.ndarray, scores: np.ndarray) -> float:
    """Average precision of ``scores`` at telling the boxes that hold a tile (``holds``) from those that don't."""
    order = np.argsort(-scores)
    hit = holds[order]
    tp = np.cumsum(hit)
    precision = tp / np.arange(1, len(hit) + 1)
    return float((precision * hit).sum() / max(hit.sum(), 1))


def val_figures(net: BoxNet, z: dict[str, np.ndarray], key: str) -> tuple[float, float]:
    """On a validation set: median IoU of the refined boxes that hold a tile, and how well (1 - p(none)) x
    expected fit ranks the boxes holding a tile above the rest (``ranking_ap``), as the runtime scores them."""
    net.eval()
    x, y, f = z[f"x{key}"], z[f"y{key}"], z[f"f{key}"]
    with torch.no_grad():
        outs = [net(as_tensor(x[i:i + 1024])) for i in range(0, len(x), 1024)]
    edges = np.concatenate([o[0].numpy() for o in outs])
    faces = np.concatenate([o[1].numpy() for o in outs])
    fit = np.concatenate([o[2].numpy() for o in outs])
    has = np.isfinite(y).all(axis=1)
    taught = f != UNTAUGHT
    return (float(np.median(paired_iou(edges[has], y[has]))),
            ranking_ap(f[taught] != NONE, (1 - faces[taught, NONE]) * fit[taught]))


def train(a: argparse.Namespace) -> None:
    rng, out = start_run(a.threads, a.seed, a.out)

    def crops() -> dict[str, np.ndarray]:
        model = TileModel.load(a.models, refine=False)
        parts = {"t": samples(Path(a.synth), "train", model, rng, limit=a.limit),
                 "v": samples(Path(a.synth), "val", model, rng, jitters=0, limit=a.limit)}
        if a.closeup and (Path(a.closeup) / "meta" / "train").exists():
            parts["c"] = samples(Path(a.closeup), "train", model, rng, jitters=1, limit=a.limit)
        photos = real.haitaks_items("train") if real.HAITAKS.exists() else []
        keep_out = set(range(0, len(photos), HAITAKS_VAL_EVERY))
        parts["p"] = photo_samples([p for i, p in enumerate(photos) if i not in keep_out], model, rng)
        parts["pv"] = photo_samples([photos[i] for i in sorted(keep_out)], model, rng, jitters=0)
        return _keyed(parts)

    def beside() -> dict[str, np.ndarray]:
        parts = {"n": beside_samples(Path(a.synth), "train", rng, limit=a.limit)}
        if a.closeup and (Path(a.closeup) / "meta" / "train").exists():
            parts["nc"] = beside_samples(Path(a.closeup), "train", rng, limit=a.limit)
        return _keyed(parts)

    z = cached(out / f"samples-{a.limit or 'all'}.npz", crops) | cached(out / f"beside-{a.limit or 'all'}.npz", beside)
    # Real photos are few: shown PHOTO_REPEAT times an epoch.
    train_parts = ["t", "n"] + (["c", "nc"] if "xc" in z else []) + ["p"] * PHOTO_REPEAT
    xt, yt, ft = (np.concatenate([z[k + part] for part in train_parts]) for k in ("x", "y", "f"))
    vals = [("synthetic", "v")] + ([("photos", "pv")] if len(z["xpv"]) else [])
    before = ", ".join(f"{name} {np.nanmedian(paired_iou(z['b0' + k], z['y' + k])):.4f}" for name, k in vals)
    print(f"train crops {len(xt)} ({int((ft == NONE).sum())} holding no tile, {len(z['xp'])} from photos), val "
          "crops " + ", ".join(f"{name} {len(z['y' + k])}" for name, k in vals)
          + f"; val median IoU as detected: {before}")
    edge_weight = a.edge_weight or EDGE_WEIGHT
    net, folded = start_from(a.init, BoxNet())
    opt = torch.optim.AdamW(net.parameters(), lr=a.lr, weight_decay=1e-4)

    def step(idx: np.ndarray, rate: float) -> float:
        net.train()
        if folded:              # the shipped file's norms were folded away: they stay as they came back
            freeze(net)
        for g in opt.param_groups:
            g["lr"] = a.lr * rate
        x, y = flip(xt[idx], yt[idx], rng)
        edges, faces, fit = net.raw(as_tensor(x))
        f = torch.from_numpy(ft[idx].astype(np.int64))
        has = np.isfinite(y).all(axis=1)
        loss = nn.functional.cross_entropy(faces, f, ignore_index=UNTAUGHT)
        if has.any():
            target = torch.from_numpy(y[has])
            loss = loss + edge_weight * nn.functional.smooth_l1_loss(edges[has], target, beta=0.01)
            iou = torch.from_numpy(paired_iou(edges[has].detach().numpy(), y[has]).astype(np.float32))
            loss = loss + nn.functional.binary_cross_entropy_with_logits(fit[has], iou)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()

    def evaluate() -> tuple[float, str]:
        scores = [val_figures(net, z, k) for _, k in vals]
        line = ", ".join(f"{name} median IoU {m:.4f} ranking AP {r:.4f}"
                         for (name, _), (m, r) in zip(vals, scores, strict=True))
        # the mean over frames and photos of both figures chooses
        return float(np.mean([v for pair in scores for v in pair])), f"val {line}"

    def save(name: str, epoch: int, score: float) -> None:
        torch.save({"state": net.state_dict(), "val_score": score, "epoch": epoch, "folded": folded},
                   out / f"{name}.pt")

    best = train_to_budget(len(xt), 256, a.minutes, rng, "refiner", step, evaluate, save)
    print(f"best val score (mean of median IoU and ranking AP over the validation sets) {best:.4f}; "
          f"checkpoints in {out}")



def export_onnx(ckpt: Path, dest: Path) -> None:
    net = BoxNet()
    net.load_state_dict(torch.load(ckpt, map_location="cpu")["state"])
    net.eval()
    dummy = torch.zeros(2, 3, REFINE_SIZE, REFINE_SIZE)
    names = ["edges", "faces", "fit"]
    torch.onnx.export(net, dummy, str(dest), input_names=["crops"], output_names=names,
                      dynamic_axes={"crops": {0: "n"}} | {k: {0: "n"} for k in names}, opset_version=17,
                      dynamo=False)
