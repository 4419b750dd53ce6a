#!/usr/bin/env bash
# The largest training run (issue 29), for a lent GPU machine (one GPU, 16 cores), as one short script:
# render the synthetic sets, then train the detector (ultralytics, from the shipped ONNX file) and the crop
# classifier (torch, from its shipped file) side by side on renders + real photos; their checkpoints go to $OUT.
#
# Before, on the development machine (the device tool carries .gpu and .whl; see models/README.md, "Retrain"):
#   python -m datasets.real_photos --export .gpu/real            # real train/val photos, ~35 MB
#   python -m datasets.scenes --out .gpu/scenes --n 400 --seed 11  # scenes from their tiles (optional, ~20 MB:
#                                                  with .gpu/real and .whl it stays under the 64 MiB a run carries)
#   copy the renderer's Noto fonts (datasets/synth/faces.py) into .gpu/fonts
#   pip download ultralytics, ultralytics-thop, onnxslim wheels for Python 3.12 into .whl
# Then: bash datasets/gpu_run.sh, and back here: python -m datasets.train export --files-only ...
#  (OUT=folder for the results; MINUTES=training budget; SMOKE=1 for a tiny run)
set -euo pipefail
OUT=${OUT:-runs/gpu}
MINUTES=${MINUTES:-5}
W=${WORKERS:-$(nproc)}
mkdir -p "$OUT"
if [ -d .whl ] && ! python3 -c "import ultralytics" 2>/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
  export PYTHONPATH=/tmp/site:$PWD
fi
export PYTHONUNBUFFERED=1 YOLO_OFFLINE=1 YOLO_AUTOINSTALL=False
[ -d .gpu/fonts ] && export MAHJ_FONT_DIR=$PWD/.gpu/fonts   # the renderer's fonts, where Debian's are missing
R=datasets/rendered
if [ -n "${SMOKE:-}" ]; then SYN=0:12; TOP=0:4; CLO=0:4; DEV=cpu; LIMIT="--limit 6"; else
  SYN=0:1440; TOP=0:720; CLO=0:600; DEV=0; LIMIT=""; fi
python3 -m datasets.synth.generate --out $R/synth --n 1600 --seed 1 --workers "$W" --range $SYN
python3 -m datasets.synth.generate --out $R/topdown --n 800 --seed 2 --view topdown --workers "$W" \
  --val 0.05 --test 0.05 --range $TOP
python3 -m datasets.synth.generate --out $R/closeup --n 1000 --seed 4 --view closeup --workers "$W" \
  --val 0.06 --test 0.06 --range $CLO
hours=$(python3 -c "print($MINUTES / 60)")
SCENES=()
[ -d .gpu/scenes ] && SCENES=(--scenes .gpu/scenes)   # composed here: they cut tiles from ../shared's photos
python3 -m datasets.train detector --device $DEV --init models/tile_detector.onnx --real .gpu/real \
  --closeup $R/closeup "${SCENES[@]}" --hours "$hours" --batch 64 --workers $((W - 4)) --name det-gpu > "$OUT/detector.log" 2>&1 &
det=$!
cdev=$([ "$DEV" = cpu ] && echo cpu || echo cuda)
python3 -m datasets.train classifier --device "$cdev" --threads 4 --init models/tile_classifier.onnx \
  --restyle 0.5 --any-angle 0.5 --warp 0.4 --real .gpu/real/train --real-val .gpu/real/val \
  --minutes "$(python3 -c "print($MINUTES - 1.5)")" \
  --out runs/cls-gpu $LIMIT > "$OUT/classifier.log" 2>&1 || echo "classifier failed"
wait $det || echo "detector failed"
# ONNX files are written back on the development machine (export --files-only): its onnx is the pinned one.
cp runs/det-gpu/weights/best.pt "$OUT/detector-best.pt"
cp runs/det-gpu/weights/last.pt "$OUT/detector-last.pt"
cp runs/cls-gpu/best.pt "$OUT/classifier-best.pt"
cp runs/det-gpu/results.csv "$OUT/" 2>/dev/null || true
tail -5 "$OUT/classifier.log" "$OUT/detector.log"
