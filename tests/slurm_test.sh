#!/usr/bin/env bash
# The batch under a real scheduler: Debian's Slurm (slurmctld and slurmd on this machine, with munge; this script
# writes their configuration and stops them) runs a job array of 4 shards over a directory of 200 images; every
# image is done exactly once and the manifests agree. Then one shard is cancelled mid-run and run again with
# --resume: what its manifest recorded is not done again, and every one of its images ends recorded ok once.
# Skips (exit 77) where Slurm or munge is not installed or cannot start here, saying why.
# usage: slurm_test.sh BUILD_DIR
set -uo pipefail
build=$(cd "$1" && pwd)
specview="$build/specview"
for tool in slurmctld slurmd munged sbatch squeue scancel sinfo; do
  command -v "$tool" > /dev/null || { echo "slurm_test: skipped: no $tool (Debian's slurm-wlm and munge)"; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "slurm_test: skipped: starting slurmd needs root"; exit 77; }
w=$(mktemp -d)
export SLURM_CONF=$w/slurm.conf
stop() {  # the daemons this script started, and their job steps; then their files
  local pids=""
  for p in slurmd slurmctld munged; do [ -f "$w/$p.pid" ] && pids="$pids $(cat "$w/$p.pid")"; done
  [ -n "$pids" ] && kill $pids 2> /dev/null
  for _ in $(seq 1 40); do kill -0 $pids 2> /dev/null || break; sleep 0.25; done
  [ -n "$pids" ] && kill -9 $pids 2> /dev/null
  pkill -f "slurmstepd.*$w" 2> /dev/null
  rm -rf "$w"
}
trap stop EXIT
fail() { echo "slurm_test: $*" >&2; tail -5 "$w"/log-* "$w"/*.log 2> /dev/null >&2; exit 1; }
mkdir -p "$w/state" "$w/spool" "$w/data/in"
host=$(hostname -s)
port=$((20000 + $$ % 20000))
cat > "$SLURM_CONF" <<CONF
ClusterName=specviewtest
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$w/munge.socket
CryptoType=crypto/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
SlurmctldPidFile=$w/slurmctld.pid
SlurmdPidFile=$w/slurmd.pid
SlurmdSpoolDir=$w/spool
StateSaveLocation=$w/state
SlurmUser=root
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SlurmctldLogFile=$w/slurmctld.log
SlurmdLogFile=$w/slurmd.log
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
head -c 1024 /dev/urandom > "$w/munge.key" && chmod 600 "$w/munge.key"
munged --key-file="$w/munge.key" --socket="$w/munge.socket" --pid-file="$w/munged.pid" --log-file="$w/munged.log" \
  --seed-file="$w/munge.seed" -f || { echo "slurm_test: skipped: munged does not start here"; exit 77; }
slurmctld -c > /dev/null 2>&1 || { echo "slurm_test: skipped: slurmctld does not start here"; exit 77; }
slurmd > /dev/null 2>&1 || { echo "slurm_test: skipped: slurmd does not start here"; exit 77; }
for _ in $(seq 1 40); do sinfo -h -o %t 2> /dev/null | grep -q idle && break; sleep 0.25; done
sinfo -h -o %t 2> /dev/null | grep -q idle || { echo "slurm_test: skipped: the node never came up"; exit 77; }

# 200 images: links to one 512^2 PNG (each is decoded and transformed on its own).
python3 - "$w/one.png" <<'EOP'
import struct, sys, zlib
w = h = 512
raw = b"".join(b"\0" + bytes((x * 7 + y * 13) % 251 for x in range(w)) for y in range(h))
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
                              + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
EOP
for ((k = 0; k < 200; ++k)); do ln -s ../../one.png "$(printf '%s/data/in/img%03d.png' "$w" "$k")"; done
wait_for() {  # until job $1 is gone from the queue (at most 120 s)
  for _ in $(seq 1 480); do [ -z "$(squeue -h -j "$1" 2> /dev/null)" ] && return 0; sleep 0.25; done
  fail "job $1 still queued after 120 s"
}
run="$specview --headless $w/data/in -o $w/data/out --jobs 1"
job=$(sbatch --parsable --array=0-3 --output="$w/log-%a.txt" \
  --wrap "$run --shard auto --manifest $w/data/m-\$SLURM_ARRAY_TASK_ID.jsonl") || fail "sbatch failed"
wait_for "$job"
python3 - "$w/data" <<'EOP' || fail "the shards' manifests do not cover every image once"
import glob, json, os, sys
d = sys.argv[1]
seen = {}
for m in sorted(glob.glob(os.path.join(d, "m-*.jsonl"))):
    for line in open(m):
        j = json.loads(line)
        assert j["status"] == "ok", j
        assert j["shard"] == "%s/4" % os.path.basename(m)[2:-6], j
        seen[j["path"]] = seen.get(j["path"], 0) + 1
assert len(glob.glob(os.path.join(d, "m-*.jsonl"))) == 4
assert len(seen) == 200 and set(seen.values()) == {1}, (len(seen), set(seen.values()))
assert len(os.listdir(os.path.join(d, "out"))) == 200
print("slurm_test: 4 shards, 200 images, each done once")
EOP

# Shard 1 of 4 again from scratch (a job of its own: named, as a requeued array task keeps its index), cancelled
# once it has recorded a few images, then resumed.
rm -rf "$w/data/out"
job=$(sbatch --parsable --output="$w/log-kill.txt" \
  --wrap "$run --shard 1/4 --manifest $w/data/k-1.jsonl --png-level 9") || fail "sbatch failed"
for _ in $(seq 1 400); do [ "$(cat "$w/data/k-1.jsonl" 2> /dev/null | wc -l)" -ge 3 ] && break; sleep 0.05; done
scancel "$job"
wait_for "$job"
before=$(wc -l < "$w/data/k-1.jsonl")
job=$(sbatch --parsable --output="$w/log-resume.txt" \
  --wrap "$run --shard 1/4 --manifest $w/data/k-1.jsonl --resume") || fail "sbatch failed"
wait_for "$job"
python3 - "$w/data" "$before" <<'EOP' || fail "the resumed shard redid or lost images"
import json, sys
d, before = sys.argv[1], int(sys.argv[2])
lines = [json.loads(l) for l in open(d + "/k-1.jsonl") if l.strip().startswith("{") and l.strip().endswith("}")]
first = {j["path"] for j in lines[:before] if j["status"] == "ok"}
ok = {}
for j in lines:
    if j["status"] == "ok":
        ok[j["path"]] = ok.get(j["path"], 0) + 1
mine = {j["path"] for j in json.loads("[" + ",".join(open(d + "/m-1.jsonl")) + "]")}
assert set(ok) == mine, (len(ok), len(mine))
assert set(ok.values()) == {1}, "an image recorded ok twice"
skipped = {j["path"] for j in lines if j["status"] == "skipped"}
assert first <= skipped, "what the cancelled run recorded was done again"
print("slurm_test: cancelled after %d of %d, resumed: each recorded ok once" % (len(first), len(mine)))
EOP
exit 0
