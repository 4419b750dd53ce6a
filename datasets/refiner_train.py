"""The box refiner: a small CNN that redraws a detector box from the camera's own pixels around it.

Why: the detector reads a 1280x720 frame at about half its size, where a tile is 20-26 px, and its box edges
are off by 3.5 px (one standard deviation) on tiles about 50 px wide in the frame: most boxes overlap their tile
by 0.82-0.86 IoU, which is what held the synthetic mAP50-95 down (models/README.md). The refiner looks at the
square of REFINE_MARGIN x the box's long side around it, cut from the frame at full resolution
(``vision.tile_model.crop_square``), and says where the tile's four edges are in that square.

Data: every labelled tile of the rendered training frames and of the haitaks training photos, seen through the
box the shipped detector gave it (its real errors) and through two boxes jittered from the truth (sizes and
shifts it has not made yet). Targets are the true edges as fractions of the square's side, from its centre.
Learning from synthetic frames alone, it moved real photos' boxes away from their tiles (models/README.md), so the
photos are not optional where ../shared has them. Needs torch (the ``train`` extra).
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn
from tqdm import tqdm

from datasets import real
from datasets.budget import cached, start_run, train_to_budget
from vision.boxes import iou_matrix, paired_iou
from vision.photo import read_photo
from vision.tile_model import CROP_MARGIN, REFINE_MARGIN, REFINE_SIZE, TileModel, crop_square, square_around

#: Jitter of the made-up input boxes, as fractions of the true box's side: centre shift and log-size spread
#: (the detector's own boxes are off by about 0.07 of a side, one standard deviation).
SHIFT_SD, SIZE_SD = 0.07, 0.10
#: Every 8th haitaks training photo judges the refiner on real photos instead of teaching it (the haitaks test
#: photos stay unseen); the others are shown PHOTO_REPEAT times an epoch.
HAITAKS_VAL_EVERY, PHOTO_REPEAT = 8, 4


class BoxNet(nn.Module):
    """Five 3x3 conv layers (three stride-2) down to 6x6, kept spatial (pooling would throw away where the edges
    are), then two linear layers to the four edges."""

    #: (in, out, stride) of each conv layer
    CHANS = ((3, 16, 2), (16, 32, 1), (32, 48, 2), (48, 64, 1), (64, 64, 2))

    def __init__(self) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        for cin, cout, stride in self.CHANS:
            layers += [nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]
        self.features = nn.Sequential(*layers)
        cells = -(-REFINE_SIZE // 8)
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(self.CHANS[-1][1] * cells * cells, 128),
                                  nn.ReLU(inplace=True), nn.Linear(128, 4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """BGR crops 0..255 (N, 3, S, S) -> edges x1, y1, x2, y2 as fractions of the crop, from its centre."""
        return self.head(self.features(x / 255.0))


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


def _views(img: np.ndarray, found: np.ndarray, truth: np.ndarray, rng: np.random.Generator, jitters: int,
           out: tuple[list, list, list]) -> None:
    """Append to ``out`` (crops, input boxes, true boxes) each true tile seen through ``jitters`` boxes jittered
    from it and through the detector's box for it (matched at IoU >= 0.3), if any."""
    iou = iou_matrix(found, truth)
    extra = REFINE_MARGIN / CROP_MARGIN
    for j, t in enumerate(truth):
        boxes = [_jittered(t, rng) for _ in range(jitters)]
        if len(found) and iou[:, j].max() >= 0.3:
            boxes.append(found[int(iou[:, j].argmax())])
        for b in boxes:
            out[0].append(crop_square(img, tuple(b), REFINE_SIZE, extra))
            out[1].append(b)
            out[2].append(t)


def _stacked(out: tuple[list, list, list]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Crops (N, S, S, 3), targets (N, 4) and the input boxes in the same terms as the targets."""
    inputs = np.array(out[1], float).reshape(-1, 4)
    return (np.stack(out[0]) if out[0] else np.zeros((0, REFINE_SIZE, REFINE_SIZE, 3), np.uint8),
            targets(inputs, np.array(out[2], float).reshape(-1, 4)), targets(inputs, inputs))


def samples(root: Path, split: str, model: TileModel, rng: np.random.Generator, jitters: int = 2,
            limit: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every labelled tile of a rendered split, through the detector's box for it and ``jitters`` jittered ones
    (``_stacked``)."""
    out: tuple[list, list, list] = ([], [], [])
    for mp in tqdm(sorted((root / "meta" / split).glob("*.json"))[:limit], desc=f"refiner {split}", unit="img"):
        meta = json.loads(mp.read_text())
        img = cv2.imread(str(root / "images" / split / (mp.stem + ".jpg")))
        truth = np.array([t["box"] for t in meta["tiles"]], float).reshape(-1, 4)
        _views(img, model.frame_boxes(img)[0], truth, rng, jitters, out)
    return _stacked(out)


def photo_samples(items: list, model: TileModel, rng: np.random.Generator, jitters: int = 2
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The same from real photos with true boxes (haitaks), each read as ``mahj detect`` reads a photo: crops
    are cut from the photo at the aspect ratio it was read at, which is where the refiner will see it."""
    out: tuple[list, list, list] = ([], [], [])
    for path, boxes in tqdm(items, desc="refiner photos", unit="img"):
        img, truth, _, _ = real.haitaks_truth(path, boxes)
        reading = read_photo(model, img)
        sx, sy = reading.scale
        found = np.array([reading.in_image(d) for d in reading.detections], float).reshape(-1, 4)
        _views(reading.image, found, truth * [sx, sy, sx, sy], rng, jitters, out)
    return _stacked(out)


def flip(x: np.ndarray, y: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One of the square's eight symmetries for each crop, its edges moved to match, plus colour and blur."""
    x, y = x.copy(), y.copy()
    for i in range(len(x)):
        if rng.random() < 0.5:                      # mirror left-right: x -> -x, and x1, x2 swap
            x[i] = x[i, :, ::-1]
            y[i] = [-y[i, 2], y[i, 1], -y[i, 0], y[i, 3]]
        if rng.random() < 0.5:                      # upside down
            x[i] = x[i, ::-1]
            y[i] = [y[i, 0], -y[i, 3], y[i, 2], -y[i, 1]]
        if rng.random() < 0.5:                      # transpose: x and y trade places
            x[i] = x[i].transpose(1, 0, 2)
            y[i] = y[i, [1, 0, 3, 2]]
        if rng.random() < 0.2:
            x[i] = cv2.GaussianBlur(x[i], (0, 0), rng.uniform(0.4, 1.0))
    f = x.astype(np.float32) * rng.uniform(0.75, 1.25, (len(x), 1, 1, 3)) + rng.uniform(-20, 20, (len(x), 1, 1, 1))
    return np.clip(f, 0, 255), y


def as_tensor(x: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2), np.float32))


def median_iou(net: BoxNet, x: np.ndarray, y: np.ndarray) -> float:
    net.eval()
    with torch.no_grad():
        p = np.concatenate([net(as_tensor(x[i:i + 1024])).numpy() for i in range(0, len(x), 1024)])
    return float(np.median(paired_iou(p, y)))


def train(a: argparse.Namespace) -> None:
    rng, out = start_run(a.threads, a.seed, a.out)

    def crops() -> dict[str, np.ndarray]:
        model = TileModel.load(a.models, refine=False)
        z = {}
        z["xt"], z["yt"], _ = samples(Path(a.synth), "train", model, rng, limit=a.limit)
        z["xv"], z["yv"], z["v0"] = samples(Path(a.synth), "val", model, rng, jitters=0, limit=a.limit)
        photos = real.haitaks_items("train") if real.HAITAKS.exists() else []
        keep_out = set(range(0, len(photos), HAITAKS_VAL_EVERY))
        z["xp"], z["yp"], _ = photo_samples([p for i, p in enumerate(photos) if i not in keep_out], model, rng)
        z["xpv"], z["ypv"], z["p0"] = photo_samples([photos[i] for i in sorted(keep_out)], model, rng, jitters=0)
        return z

    z = cached(out / f"samples-{a.limit or 'all'}.npz", crops)
    # Real photos are few: shown PHOTO_REPEAT times an epoch.
    xt = np.concatenate([z["xt"]] + [z["xp"]] * PHOTO_REPEAT)
    yt = np.concatenate([z["yt"]] + [z["yp"]] * PHOTO_REPEAT)
    vals = [("synthetic", z["xv"], z["yv"], z["v0"])]
    if len(z["xpv"]):
        vals.append(("photos", z["xpv"], z["ypv"], z["p0"]))
    before = ", ".join(f"{name} {np.median(paired_iou(v0, y)):.4f}" for name, _, y, v0 in vals)
    print(f"train crops {len(xt)} ({len(z['xp'])} from photos), val crops " + ", ".join(
        f"{name} {len(y)}" for name, _, y, _ in vals) + f"; val median IoU as detected: {before}")
    net = BoxNet()
    opt = torch.optim.AdamW(net.parameters(), lr=a.lr, weight_decay=1e-4)

    def step(idx: np.ndarray, rate: float) -> float:
        net.train()
        for g in opt.param_groups:
            g["lr"] = a.lr * rate
        x, y = flip(xt[idx], yt[idx], rng)
        loss = nn.functional.smooth_l1_loss(net(as_tensor(x)), torch.from_numpy(y), beta=0.01)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()

    def evaluate() -> tuple[float, str]:
        scores = [median_iou(net, x, y) for _, x, y, _ in vals]
        line = ", ".join(f"{name} {v:.4f}" for (name, *_), v in zip(vals, scores, strict=True))
        return float(np.mean(scores)), f"val median IoU {line}"   # the mean over frames and photos chooses

    def save(name: str, epoch: int, score: float) -> None:
        torch.save({"state": net.state_dict(), "val_median_iou": score, "epoch": epoch}, out / f"{name}.pt")

    best = train_to_budget(len(xt), 256, a.minutes, rng, "refiner", step, evaluate, save)
    print(f"best val median IoU (mean over the validation sets) {best:.4f}; checkpoints in {out}")


def export_onnx(ckpt: Path, dest: Path) -> None:
    net = BoxNet()
    net.load_state_dict(torch.load(ckpt, map_location="cpu")["state"])
    net.eval()
    dummy = torch.zeros(2, 3, REFINE_SIZE, REFINE_SIZE)
    torch.onnx.export(net, dummy, str(dest), input_names=["crops"], output_names=["edges"],
                      dynamic_axes={"crops": {0: "n"}, "edges": {0: "n"}}, opset_version=17, dynamo=False)
