"""The fleet jobs: SQL over a dataset, the pooled per-method profile, and pooled problem hints.

Every query here is in the SQL tracekit's embedded engine (DataFusion) and Spark share, over the
schema of ``crates/sql/src/schema.rs``; the standard library's views come from
``crates/sql/stdlib``. Sessions are pooled in the order of their ids (sorted), as
``tracekit problems`` pools its inputs in the order given.
"""

from . import dataset
from . import hints as hints_core


def _sql_text(s):
    """A SQL string literal."""
    return "'" + s.replace("'", "''") + "'"


def query(spark, text):
    """Runs every ``;``-separated statement of ``text``; returns the last one's (columns, rows)."""
    statements = [s for s in _split(text) if s.strip()]
    if not statements:
        raise ValueError("no statement to run")
    df = None
    for s in statements:
        df = spark.sql(s)
    return df.columns, [tuple(r) for r in df.collect()]


def _split(text):
    """Splits SQL at semicolons outside quotes and comments."""
    out, cur, i, quote = [], [], 0, None
    while i < len(text):
        c = text[i]
        if quote:
            cur.append(c)
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
            cur.append(c)
        elif text.startswith("--", i):
            j = text.find("\n", i)
            i = len(text) if j < 0 else j
            continue
        elif c == ";":
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    out.append("".join(cur))
    return out


def queries_dir():
    """Where the canned queries are (TRACEKIT_SQL_QUERIES, else beside the standard library)."""
    import os

    d = os.environ.get("TRACEKIT_SQL_QUERIES")
    return d or os.path.join(dataset.stdlib_dir(), "..", "queries")


def canned_queries(spark):
    """Every canned query's (columns, rows), by name, in name order."""
    import os

    d = queries_dir()
    out = {}
    for f in sorted(os.listdir(d)):
        if f.endswith(".sql"):
            with open(os.path.join(d, f), encoding="utf-8") as fh:
                out[f[:-4]] = query(spark, fh.read())
    return out


PROFILE_COLUMNS = ["name", "signature", "sessions", "calls", "recursive_calls", "incl_ns", "excl_ns", "incl_cpu_ns", "excl_cpu_ns"]


def profile_columns():
    """The fleet profile's columns (and no rows)."""
    return PROFILE_COLUMNS, []


def profile(spark):
    """The standard library's ``fleet_method_profile``, largest inclusive time first."""
    return query(
        spark,
        f"SELECT {', '.join(PROFILE_COLUMNS)} FROM fleet_method_profile ORDER BY incl_ns DESC, name, signature",
    )


def occurrence_sql(brb_method="brb", method=None):
    """The occurrences' query: big-red-button presses (calls and markers named ``brb_method``), or the
    calls of ``method`` matched as tracekit matches a method pattern (name, Class.name, pkg/Class.name,
    or the full display name)."""
    if method is None:
        p = _sql_text(brb_method.strip())
        return (
            "SELECT c.session, c.ts, c.thread FROM call c JOIN method m ON m.id = c.method AND m.session = c.session "
            f"WHERE m.name = {p} UNION ALL SELECT session, ts, thread FROM marker WHERE name = {p}"
        )
    p = method.strip()
    d = p.replace("/", ".")
    match = (
        f"m.name = {_sql_text(p)} OR m.qualified = {_sql_text(d)} "
        f"OR CASE WHEN m.signature = '' THEN m.qualified ELSE concat(m.qualified, ' ', m.signature) END = {_sql_text(d)}"
    )
    if "." in d:
        match += f" OR right(m.qualified, {len(d) + 1}) = {_sql_text('.' + d)}"
    return (
        "SELECT c.session, c.ts, c.thread FROM call c JOIN method m ON m.id = c.method AND m.session = c.session "
        f"WHERE {match}"
    )


def _sessions_data(spark, ids):
    """Per session, the inputs of the hints (horizon, properties, context items, counters), in ``ids`` order."""
    from pyspark.sql.functions import monotonically_increasing_id

    index = {sid: i for i, sid in enumerate(ids)}
    sessions = [{"horizon_ns": 0, "properties": [], "context": [], "counters": []} for _ in ids]
    for r in spark.sql("SELECT session, horizon FROM session").collect():
        sessions[index[r["session"]]]["horizon_ns"] = r["horizon"]
    # File order is the source's order: keep it for equal keys with a row number taken before any shuffle.
    props = spark.table("property").withColumn("_row", monotonically_increasing_id())
    for r in props.orderBy("session", "_row").collect():
        sessions[index[r["session"]]]["properties"].append((r["key"], r["value"]))
    ctx = spark.table("context").withColumn("_row", monotonically_increasing_id())
    ctx.createOrReplaceTempView("_context_rows")
    rows = spark.sql(
        "SELECT x.session, x.track, t.label, t.type, t.unit, x.ts, x.int_value, x.real_value, x.string_value "
        "FROM _context_rows x JOIN context_track t ON t.id = x.track AND t.session = x.session "
        "ORDER BY x.session, x.track, x._row"
    ).collect()
    tracks = {}
    for r in rows:
        key = (r["session"], r["track"])
        t = tracks.get(key)
        if t is None:
            t = {"label": r["label"], "type": r["type"], "unit": r["unit"], "times": [], "values": []}
            tracks[key] = t
        t["times"].append(r["ts"])
        v = r["string_value"] if r["type"] == "string" else r["real_value"] if r["type"] in ("float", "double") else r["int_value"]
        t["values"].append(v)
    # Context items without records still exist (and hints show them).
    for r in spark.sql("SELECT session, id, label, type, unit FROM context_track").collect():
        tracks.setdefault((r["session"], r["id"]), {"label": r["label"], "type": r["type"], "unit": r["unit"], "times": [], "values": []})
    for (sid, tid), t in sorted(tracks.items(), key=lambda kv: (index[kv[0][0]], kv[0][1])):
        sessions[index[sid]]["context"].append(t)
    cnt = spark.table("counter").withColumn("_row", monotonically_increasing_id())
    cnt.createOrReplaceTempView("_counter_rows")
    counters = {}
    for r in spark.sql("SELECT session, id, name, unit, kind, wraps_at, pid, cpu FROM counter_track").collect():
        counters[(r["session"], r["id"])] = {
            "name": r["name"], "unit": r["unit"], "kind": r["kind"], "wraps_at": r["wraps_at"],
            "pid": r["pid"], "cpu": r["cpu"], "times": [], "values": [],
        }
    for r in spark.sql("SELECT session, track, ts, value FROM _counter_rows ORDER BY session, track, _row").collect():
        c = counters[(r["session"], r["track"])]
        c["times"].append(r["ts"])
        c["values"].append(r["value"])
    for (sid, cid), c in sorted(counters.items(), key=lambda kv: (index[kv[0][0]], kv[0][1])):
        sessions[index[sid]]["counters"].append(c)
    return sessions


def hints(spark, path, brb_method="brb", method=None, rate_window_s=5.0, time_window_s=None):
    """Occurrences of the problem over every session (found by Spark over the ``call`` and ``marker``
    tables) and the context hints pooled over them, ranked as ``tracekit problems`` ranks them."""
    ids = dataset.session_ids(path)
    index = {sid: i for i, sid in enumerate(ids)}
    occ = spark.sql(occurrence_sql(brb_method, method)).collect()
    occurrences = sorted((index[r["session"]], r["ts"], r["thread"]) for r in occ)
    sessions = _sessions_data(spark, ids)
    ranked = hints_core.hints(
        sessions, [(s, ts) for s, ts, _ in occurrences], rate_window_s=rate_window_s, time_window_s=time_window_s
    )
    return {
        "sessions": len(ids),
        "session_ids": ids,
        "occurrences": [{"session": ids[s], "ts_ns": ts, "thread": th} for s, ts, th in occurrences],
        "hints": ranked,
    }
