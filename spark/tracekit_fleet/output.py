"""Printing query results the way ``tracekit sql`` does: a table, CSV or JSON (array of objects)."""

import csv
import json
import sys


def _plain(v):
    """A JSON-ready value: decimals become floats, dates and times ISO text, the rest stays."""
    import datetime
    import decimal

    if isinstance(v, decimal.Decimal):
        return float(v)
    if isinstance(v, (datetime.date, datetime.datetime)):
        return v.isoformat()
    return v


def plain_rows(rows):
    """Rows with every value JSON-ready (see ``_plain``)."""
    return [[_plain(v) for v in r] for r in rows]


def write(columns, rows, fmt="table", out=None):
    """Writes ``rows`` (sequences in ``columns`` order) as ``fmt``: table, csv or json."""
    out = out or sys.stdout
    if fmt == "json":
        json.dump([{c: _plain(v) for c, v in zip(columns, r)} for r in rows], out)
        out.write("\n")
    elif fmt == "csv":
        w = csv.writer(out, lineterminator="\n")
        w.writerow(columns)
        for r in rows:
            w.writerow(["" if v is None else v for v in r])
    else:
        cells = [[("" if v is None else str(v)) for v in r] for r in rows]
        widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
        line = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
        out.write(line + "\n")
        out.write("| " + " | ".join(c.ljust(w) for c, w in zip(columns, widths)) + " |\n")
        out.write(line + "\n")
        for r in cells:
            out.write("| " + " | ".join(v.ljust(w) for v, w in zip(r, widths)) + " |\n")
        out.write(line + "\n")
        out.write(f"({len(rows)} row{'' if len(rows) == 1 else 's'})\n")
