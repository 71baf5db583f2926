"""``python -m tracekit_fleet JOB DATASET …``: tracekit's fleet jobs on Apache Spark (see ``spark/fleet``)."""

import argparse
import json
import sys

from . import dataset, jobs, output


def main(argv=None):
    p = argparse.ArgumentParser(prog="spark/fleet", description="tracekit's fleet analyses on Apache Spark")
    sub = p.add_subparsers(dest="job", required=True)

    def common(sp):
        sp.add_argument("dataset", help="a Parquet dataset written by tracekit export --parquet")
        sp.add_argument("--master", help="Spark master URL (default local[*])")
        fmt = sp.add_mutually_exclusive_group()
        fmt.add_argument("--csv", action="store_true", help="print CSV")
        fmt.add_argument("--json", action="store_true", help="print JSON")

    q = sub.add_parser("query", help="run SQL over the dataset (tables and the standard library's views)")
    common(q)
    src = q.add_mutually_exclusive_group(required=True)
    src.add_argument("-q", "--query", help="the query")
    src.add_argument("-f", "--file", help="read the query from this file")

    al = sub.add_parser("all", help="profile, hints and every canned query in one Spark session (JSON)")
    common(al)

    qs = sub.add_parser("queries", help="run every canned query (crates/sql/queries) and print each one's rows")
    common(qs)

    pr = sub.add_parser("profile", help="the per-method profile pooled over every session")
    common(pr)
    pr.add_argument("--limit", type=int, default=25, help="rows to print in the table (0 = all; JSON and CSV have all)")

    h = sub.add_parser("hints", help="problem occurrences and ranked context hints pooled over every session")
    common(h)
    h.add_argument("--brb-method", default="brb", help="the method the big red button calls (default brb)")
    h.add_argument("--method", help="the problem is every call of this method instead")
    h.add_argument("--rate-window-s", type=float, default=5.0, help="window of a running total's rate (s)")
    h.add_argument("--time-window-s", type=float, default=None, help="window of nearby times (s; default a quarter of the median session)")

    a = p.parse_args(argv)
    fmt = "json" if a.json else "csv" if a.csv else "table"
    try:
        dataset.read_manifest(a.dataset)
    except ValueError as e:
        print(f"spark/fleet: error: {e}", file=sys.stderr)
        return 1
    spark = dataset.spark_session(a.master)
    try:
        dataset.register(spark, a.dataset)
        dataset.register_stdlib(spark)
        if a.job == "query":
            text = a.query if a.query is not None else open(a.file, encoding="utf-8").read()
            columns, rows = jobs.query(spark, text)
            output.write(columns, rows, fmt)
        elif a.job == "all":
            queries = jobs.canned_queries(spark)
            _, prof_rows = jobs.profile(spark)
            prof_cols, _ = jobs.profile_columns()
            report = {
                "queries": {n: {"columns": c, "rows": output.plain_rows(rows)} for n, (c, rows) in queries.items()},
                "profile": [dict(zip(prof_cols, r)) for r in output.plain_rows(prof_rows)],
                "hints": jobs.hints(spark, a.dataset),
            }
            json.dump(report, sys.stdout)
            sys.stdout.write("\n")
        elif a.job == "queries":
            results = jobs.canned_queries(spark)
            if fmt == "json":
                json.dump({n: {"columns": c, "rows": output.plain_rows(rows)} for n, (c, rows) in results.items()}, sys.stdout)
                sys.stdout.write("\n")
            else:
                for n, (c, rows) in results.items():
                    print(f"-- {n}")
                    output.write(c, rows, fmt)
        elif a.job == "profile":
            columns, rows = jobs.profile(spark)
            if fmt == "table" and a.limit:
                rows = rows[: a.limit]
            output.write(columns, rows, fmt)
        else:
            report = jobs.hints(spark, a.dataset, a.brb_method, a.method, a.rate_window_s, a.time_window_s)
            if fmt == "json":
                json.dump(report, sys.stdout)
                sys.stdout.write("\n")
            else:
                print(f"{len(report['occurrences'])} occurrences in {report['sessions']} sessions")
                cols = ["label", "kind", "score", "raw_score", "confounded_with_time", "defined"]
                output.write(cols, [[h.get(c) for c in cols] for h in report["hints"]], fmt)
    finally:
        spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
