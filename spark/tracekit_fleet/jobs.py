"""The fleet jobs: SQL over a dataset, the pooled per-method profile, and pooled problem hints.

Every query here is in the SQL tracekit's embedded engine (DataFusion) and Spark share, over the
schema of ``crates/sql/src/schema.rs``; the standard library's views come from
``crates/sql/stdlib``. Sessions are pooled in the order of their ids (sorted), as
``tracekit problems`` pools its inputs in the order given.
"""

from . import dataset


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


def _item_plan(spark, ids):
    """What each hint item is made of, from the small tables only: the items
    (label, type) in order of sight, and per session which context track
    (``("c", id)``) or counter (``("k", id)``) is the item, as
    ``Session::context_items`` picks them; counters' declared kinds."""
    index = {sid: i for i, sid in enumerate(ids)}
    per_session = [[] for _ in ids]  # [(label, type, unit, source)] in context_items order
    context_labels = [set() for _ in ids]
    for r in spark.sql("SELECT session, id, label, type, unit FROM context_track ORDER BY session, id").collect():
        s = index[r["session"]]
        per_session[s].append((r["label"], r["type"], r["unit"], ("c", r["id"])))
        context_labels[s].add(r["label"])
    # A counter's item type depends on its values: a level of whole numbers is a long item.
    counters = spark.sql(
        "SELECT t.session, t.id, t.name, t.unit, t.kind, t.wraps_at, a.whole "
        "FROM counter_track t JOIN (SELECT session, track, "
        "min(CASE WHEN NOT isnan(value) AND abs(value) < 9e15 AND value = round(value, 0) THEN 1 ELSE 0 END) AS whole "
        "FROM counter GROUP BY session, track) a ON a.session = t.session AND a.track = t.id "
        "ORDER BY t.session, t.id"
    ).collect()
    declared = [{} for _ in ids]
    counter_meta = {}
    for r in counters:
        s = index[r["session"]]
        if r["name"] in context_labels[s]:
            continue
        kind = "long" if r["kind"] == "level" and r["whole"] == 1 else "double"
        per_session[s].append((r["name"], kind, r["unit"], ("k", r["id"])))
        declared[s].setdefault(r["name"], (r["kind"], r["wraps_at"]))
        counter_meta[(r["session"], r["id"])] = {"name": r["name"], "unit": r["unit"], "kind": r["kind"], "wraps_at": r["wraps_at"]}
    labels, seen = [], set()
    for items in per_session:
        for label, kind, _, _ in items:
            if label not in seen:
                seen.add(label)
                labels.append((label, kind))
    # The item of each label in each session: its first track of the label's type.
    wanted = {}
    members = [[None] * len(ids) for _ in labels]
    position = {key: i for i, key in enumerate(labels)}
    for s, items in enumerate(per_session):
        taken = set()
        for label, kind, unit, source in items:
            i = position.get((label, kind))
            if i is None or (label, kind) in taken:
                continue
            taken.add((label, kind))
            members[i][s] = {"type": kind, "unit": unit, "source": source}
            wanted[(ids[s], source[0], source[1])] = (i, kind)
    return labels, members, declared, counter_meta, wanted


def _item_task(args):
    """Runs where one item's records are: builds its track per session and
    computes its hint (see ``hints.item_hint``)."""
    from . import hints as core
    from .hints_series import context_track, counter_to_context

    (i, records), meta = args
    label, kind = meta["labels"][i]
    ids = meta["ids"]
    by_session = {}
    for sid, row, ts, value in records:
        by_session.setdefault(sid, []).append((row, ts, value))
    tracks = []
    for s, m in enumerate(meta["members"][i]):
        if m is None:
            tracks.append(None)
            continue
        rows = sorted(by_session.get(ids[s], []))
        times = [ts for _, ts, _ in rows]
        values = [v for _, _, v in rows]
        if m["source"][0] == "c":
            tracks.append(context_track({"label": label, "type": m["type"], "unit": m["unit"], "times": times, "values": values}))
        else:
            c = dict(meta["counter_meta"][(ids[s], m["source"][1])])
            c.update(times=times, values=values)
            tracks.append(counter_to_context(c))
    declared = [d.get(label) for d in meta["declared"]]
    h, beyond = core.item_hint(label, kind, tracks, declared, meta["occurrences"], meta["ends"], meta["settings"])
    return i, h, beyond


def hints(spark, path, brb_method="brb", method=None, rate_window_s=5.0, time_window_s=None):
    """Occurrences of the problem over every session and the context hints
    pooled over them, ranked as ``tracekit problems`` ranks them.

    Spark finds the occurrences over ``call`` and ``marker``, groups every
    context record and counter sample by the item it belongs to, and scores
    each item where its records are; the driver holds only the sessions'
    ends, the occurrences and one result per item."""
    from pyspark.sql.functions import monotonically_increasing_id

    from . import hints as core

    ids = dataset.session_ids(path)
    index = {sid: i for i, sid in enumerate(ids)}
    occ = spark.sql(occurrence_sql(brb_method, method)).collect()
    occurrences = sorted((index[r["session"]], r["ts"], r["thread"]) for r in occ)
    ends = [0] * len(ids)
    for r in spark.sql("SELECT session, horizon FROM session").collect():
        ends[index[r["session"]]] = r["horizon"]
    labels, members, declared, counter_meta, wanted = _item_plan(spark, ids)
    meta = {
        "ids": ids,
        "labels": labels,
        "members": members,
        "declared": declared,
        "counter_meta": counter_meta,
        "occurrences": [(s, ts) for s, ts, _ in occurrences],
        "ends": ends,
        "settings": core.window_settings(ends, rate_window_s, time_window_s),
    }
    sc = spark.sparkContext
    wanted_b = sc.broadcast(wanted)
    meta_b = sc.broadcast(meta)

    def keyed(kind_tag, value_of):
        def f(r):
            key = wanted_b.value.get((r[0], kind_tag, r[1]))
            if key is None:
                return []
            return [(key[0], (r[0], r[2], r[3], value_of(r, key[1])))]

        return f

    def context_value(r, kind):
        return r[6] if kind == "string" else r[5] if kind in ("float", "double") else r[4]

    ctx = spark.table("context").withColumn("_row", monotonically_increasing_id())
    ctx = ctx.select("session", "track", "_row", "ts", "int_value", "real_value", "string_value").rdd
    cnt = spark.table("counter").withColumn("_row", monotonically_increasing_id())
    cnt = cnt.select("session", "track", "_row", "ts", "value").rdd
    records = ctx.flatMap(keyed("c", context_value)).union(cnt.flatMap(keyed("k", lambda r, _: r[4])))
    grouped = records.groupByKey(max(1, min(len(labels), sc.defaultParallelism * 4)))
    results = grouped.map(lambda kv: _item_task(((kv[0], list(kv[1])), meta_b.value))).collect()
    done = {i for i, _, _ in results}
    # Items without a single record still get their hint (an empty track).
    results += [_item_task(((i, []), meta)) for i in range(len(labels)) if i not in done]
    results.sort(key=lambda x: x[0])
    ranked = core.rank([(h, beyond) for _, h, beyond in results], meta["occurrences"], ends)
    return {
        "sessions": len(ids),
        "session_ids": ids,
        "occurrences": [{"session": ids[s], "ts_ns": ts, "thread": th} for s, ts, th in occurrences],
        "hints": ranked,
    }
