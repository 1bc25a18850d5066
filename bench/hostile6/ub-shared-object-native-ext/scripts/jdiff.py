import sys, pathlib
sys.path.insert(0, str(pathlib.Path(__file__).parent / "lib"))
import _jdiff_native  # compiled accelerator
for p in _jdiff_native.diff(open(sys.argv[1]).read(), open(sys.argv[2]).read()):
    print(p)
