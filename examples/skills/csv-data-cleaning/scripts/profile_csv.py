#!/usr/bin/env python3
"""Profile a CSV file: shape, null counts, inferred column types and more.

Standard library only. Usage:

    python3 profile_csv.py data.csv
    python3 profile_csv.py data.csv --json
    python3 profile_csv.py data.csv --delimiter ';' --max-rows 100000
    python3 profile_csv.py data.csv --null-values "NA,-,unknown"

Exit codes: 0 on success, 1 if the file cannot be read or parsed, 2 on
bad command-line arguments.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import sys
from collections import Counter, defaultdict
from datetime import datetime

DEFAULT_NULLS = {"", "na", "n/a", "null", "none", "nan", "nil", "-", "#n/a"}
BOOL_VALUES = {"true", "false", "yes", "no", "y", "n", "t", "f"}
INT_RE = re.compile(r"^[+-]?\d+$")
FLOAT_RE = re.compile(r"^[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?$")
THOUSANDS_RE = re.compile(r"^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$")
DATE_FORMATS = ("%Y-%m-%d", "%Y/%m/%d", "%d/%m/%Y", "%m/%d/%Y", "%d.%m.%Y")
DATETIME_FORMATS = (
    "%Y-%m-%dT%H:%M:%S",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%dT%H:%M:%SZ",
    "%Y-%m-%dT%H:%M",
    "%Y-%m-%d %H:%M",
)
ENCODINGS = ("utf-8-sig", "cp1252", "latin-1")
SAMPLE_VALUES = 3


def classify(value: str) -> tuple[str, str | None]:
    """Return (type, detail) for a non-null value.

    detail is the matching strptime pattern for dates, otherwise None.
    """
    v = value.strip()
    if INT_RE.match(v):
        return "integer", None
    if FLOAT_RE.match(v):
        return "float", None
    if THOUSANDS_RE.match(v):
        return "number_with_separators", None
    if v.lower() in BOOL_VALUES:
        return "boolean", None
    for fmt in DATE_FORMATS:
        try:
            datetime.strptime(v, fmt)
            return "date", fmt
        except ValueError:
            pass
    for fmt in DATETIME_FORMATS:
        try:
            datetime.strptime(v, fmt)
            return "datetime", fmt
        except ValueError:
            pass
    # Catch ISO 8601 variants such as offsets (+02:00) and fractional seconds.
    try:
        datetime.fromisoformat(v.replace("Z", "+00:00"))
        return "datetime", "iso8601"
    except ValueError:
        pass
    return "string", None


def resolve_type(counts: Counter) -> str:
    """Combine per-value type counts into one column type."""
    kinds = {k for k, n in counts.items() if n}
    if not kinds:
        return "empty"
    if len(kinds) == 1:
        return kinds.pop()
    if kinds <= {"integer", "float"}:
        return "float"
    if kinds <= {"integer", "float", "number_with_separators"}:
        return "number_with_separators"
    if kinds <= {"date", "datetime"}:
        return "datetime"
    return "mixed(" + ",".join(sorted(kinds)) + ")"


def read_text(path: str) -> tuple[str, str]:
    with open(path, "rb") as fh:
        raw = fh.read()
    for enc in ENCODINGS:
        try:
            text = raw.decode(enc)
        except UnicodeDecodeError:
            continue
        if enc == "utf-8-sig":
            return text, "utf-8 (with BOM)" if raw.startswith(b"\xef\xbb\xbf") else "utf-8"
        return text, enc
    raise UnicodeDecodeError("unknown", b"", 0, 1, "no encoding matched")


def detect_dialect(text: str, delimiter: str | None):
    if delimiter:
        class Forced(csv.excel):
            pass

        Forced.delimiter = delimiter
        return Forced
    sample = text[:64 * 1024]
    try:
        return csv.Sniffer().sniff(sample, delimiters=",;\t|")
    except csv.Error:
        return csv.excel


def profile(path: str, delimiter: str | None, nulls: set[str], max_rows: int | None) -> dict:
    text, encoding = read_text(path)
    dialect = detect_dialect(text, delimiter)
    reader = csv.reader(io.StringIO(text, newline=""), dialect)

    try:
        header = next(reader)
    except StopIteration:
        raise ValueError("file is empty")

    ncols = len(header)
    type_counts = [Counter() for _ in range(ncols)]
    null_counts = [0] * ncols
    distinct = [set() for _ in range(ncols)]
    samples: list[list[str]] = [[] for _ in range(ncols)]
    numeric_min: list[float | None] = [None] * ncols
    numeric_max: list[float | None] = [None] * ncols
    padded = [0] * ncols
    max_len = [0] * ncols
    date_formats = [Counter() for _ in range(ncols)]
    case_variants = [defaultdict(set) for _ in range(ncols)]
    ragged_rows: list[int] = []
    row_hashes: Counter = Counter()
    rows = 0
    truncated = False

    for row in reader:
        if not row:
            continue  # blank line
        if max_rows is not None and rows >= max_rows:
            truncated = True
            break
        rows += 1
        if len(row) != ncols:
            ragged_rows.append(reader.line_num)
        row_hashes[tuple(row)] += 1
        for i in range(ncols):
            value = row[i] if i < len(row) else ""
            if value != value.strip():
                padded[i] += 1
            stripped = value.strip()
            max_len[i] = max(max_len[i], len(value))
            if stripped.lower() in nulls:
                null_counts[i] += 1
                continue
            kind, detail = classify(stripped)
            type_counts[i][kind] += 1
            if detail:
                date_formats[i][detail] += 1
            if kind == "string":
                case_variants[i][stripped.lower()].add(stripped)
            if len(distinct[i]) <= 10000:
                distinct[i].add(stripped)
            if len(samples[i]) < SAMPLE_VALUES and stripped not in samples[i]:
                samples[i].append(stripped)
            if kind in ("integer", "float", "number_with_separators"):
                num = float(stripped.replace(",", ""))
                if numeric_min[i] is None or num < numeric_min[i]:
                    numeric_min[i] = num
                if numeric_max[i] is None or num > numeric_max[i]:
                    numeric_max[i] = num

    header_counts = Counter(h.strip() for h in header)
    columns = []
    for i, name in enumerate(header):
        non_null = rows - null_counts[i]
        col = {
            "index": i,
            "name": name,
            "type": resolve_type(type_counts[i]),
            "nulls": null_counts[i],
            "null_pct": round(100.0 * null_counts[i] / rows, 1) if rows else 0.0,
            "non_null": non_null,
            "distinct": len(distinct[i]) if len(distinct[i]) <= 10000 else ">10000",
            "type_counts": dict(type_counts[i]),
            "whitespace_padded": padded[i],
            "max_length": max_len[i],
            "samples": samples[i],
            "date_formats": dict(date_formats[i]),
            "case_variant_groups": sum(1 for v in case_variants[i].values() if len(v) > 1),
        }
        if numeric_min[i] is not None:
            col["min"] = numeric_min[i]
            col["max"] = numeric_max[i]
        columns.append(col)

    duplicates = sum(n - 1 for n in row_hashes.values() if n > 1)
    return {
        "file": path,
        "encoding": encoding,
        "delimiter": dialect.delimiter,
        "rows": rows,
        "column_count": ncols,
        "duplicate_header_names": sorted(h for h, n in header_counts.items() if n > 1),
        "blank_header_names": sum(1 for h in header if not h.strip()),
        "ragged_rows": len(ragged_rows),
        "ragged_row_lines": ragged_rows[:20],
        "duplicate_rows": duplicates,
        "truncated": truncated,
        "columns": columns,
    }


def fmt_num(x: float | None) -> str:
    if x is None:
        return ""
    return str(int(x)) if float(x).is_integer() else f"{x:.4g}"


def print_report(p: dict) -> None:
    delim = {"\t": "\\t"}.get(p["delimiter"], p["delimiter"])
    print(f"File:       {p['file']}")
    print(f"Encoding:   {p['encoding']}    Delimiter: '{delim}'")
    print(f"Rows:       {p['rows']}" + ("  (truncated by --max-rows)" if p["truncated"] else ""))
    print(f"Columns:    {p['column_count']}")
    print(f"Duplicates: {p['duplicate_rows']} duplicate row(s)")
    if p["ragged_rows"]:
        lines = ", ".join(str(n) for n in p["ragged_row_lines"])
        print(f"Ragged:     {p['ragged_rows']} row(s) with wrong field count (lines {lines})")
    if p["duplicate_header_names"]:
        print(f"WARNING:    duplicate column names: {', '.join(p['duplicate_header_names'])}")
    if p["blank_header_names"]:
        print(f"WARNING:    {p['blank_header_names']} blank column name(s)")
    print()

    headers = ["#", "column", "type", "nulls", "null%", "distinct", "min", "max", "padded", "samples"]
    table = []
    for c in p["columns"]:
        table.append([
            str(c["index"]),
            c["name"] or "<blank>",
            c["type"],
            str(c["nulls"]),
            f"{c['null_pct']:.1f}",
            str(c["distinct"]),
            fmt_num(c.get("min")),
            fmt_num(c.get("max")),
            str(c["whitespace_padded"]),
            " | ".join(c["samples"]).replace("\r", "\\r").replace("\n", "\\n")[:40],
        ])
    widths = [max(len(h), *(len(r[i]) for r in table)) if table else len(h) for i, h in enumerate(headers)]
    print("  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip())
    print("  ".join("-" * w for w in widths))
    for r in table:
        print("  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip())

    notes = findings(p)
    if notes:
        print()
        print("Findings:")
        for note in notes:
            print(f"  - {note}")


def findings(p: dict) -> list[str]:
    """Plain-language hints about likely data quality problems."""
    out = []
    if p["duplicate_rows"]:
        out.append(f"{p['duplicate_rows']} exact duplicate row(s); check whether they are real repeats")
    if p["ragged_rows"]:
        out.append("some rows have too many or too few fields; look for unquoted delimiters")
    for c in p["columns"]:
        label = c["name"] or f"column {c['index']}"
        if c["type"].startswith("mixed("):
            out.append(f"'{label}' mixes value types {c['type_counts']}")
        if "number_with_separators" in c["type_counts"]:
            out.append(f"'{label}' has numbers with thousands separators; strip them before casting")
        if len(c["date_formats"]) > 1:
            fmts = ", ".join(sorted(c["date_formats"]))
            out.append(f"'{label}' uses several date formats ({fmts}); normalise to ISO 8601")
        if c["whitespace_padded"]:
            out.append(f"'{label}' has {c['whitespace_padded']} value(s) with leading/trailing spaces")
        if c["case_variant_groups"]:
            out.append(f"'{label}' has {c['case_variant_groups']} value(s) that differ only by letter case")
        if c["non_null"] == 0 and p["rows"]:
            out.append(f"'{label}' is entirely empty")
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description="Profile a CSV file (stdlib only).")
    ap.add_argument("path", help="CSV file to profile")
    ap.add_argument("--delimiter", "-d", help="force a delimiter instead of sniffing (use '\\t' for tab)")
    ap.add_argument("--json", action="store_true", help="print the profile as JSON")
    ap.add_argument("--max-rows", type=int, default=None, help="stop after this many data rows")
    ap.add_argument("--null-values", default=None,
                    help="comma-separated extra tokens treated as null (case-insensitive)")
    args = ap.parse_args(argv)

    delimiter = args.delimiter
    if delimiter == "\\t":
        delimiter = "\t"
    if delimiter is not None and len(delimiter) != 1:
        ap.error("--delimiter must be a single character")

    nulls = set(DEFAULT_NULLS)
    if args.null_values:
        nulls |= {t.strip().lower() for t in args.null_values.split(",")}

    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    try:
        result = profile(args.path, delimiter, nulls, args.max_rows)
    except (OSError, ValueError, csv.Error) as exc:
        print(f"error: {args.path}: {exc}", file=sys.stderr)
        return 1

    try:
        if args.json:
            result["findings"] = findings(result)
            json.dump(result, sys.stdout, indent=2, ensure_ascii=False)
            print()
        else:
            print_report(result)
        sys.stdout.flush()
    except BrokenPipeError:
        # Output was piped into something like `head`; exit quietly.
        sys.stdout = None
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
