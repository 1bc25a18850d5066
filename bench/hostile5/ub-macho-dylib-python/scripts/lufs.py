#!/usr/bin/env python3
import ctypes, sys
from pathlib import Path
lib = ctypes.CDLL(str(Path(__file__).parent / "lib" / "libebur128.dylib"))
lib.measure_file.restype = ctypes.c_double
print(f"integrated loudness: {lib.measure_file(sys.argv[1].encode()):.1f} LUFS")
