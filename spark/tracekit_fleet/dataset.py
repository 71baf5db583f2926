"""A tracekit Parquet dataset as Spark tables, and tracekit's SQL standard library as views.

The dataset (``tracekit export --parquet DIR``) holds ``DIR/<table>/session=<id>/part-0.parquet``
for every table and session, and ``DIR/tracekit-dataset.json`` listing the sessions. Each table
becomes a temporary view of the same name; Spark's partition discovery adds the ``session``
column last, exactly where tracekit's schema has it.
"""

import json
import os

MANIFEST = "tracekit-dataset.json"


def read_manifest(path):
    """The dataset's manifest (format, version, sessions by id); raises ValueError when absent."""
    f = os.path.join(path, MANIFEST)
    if not os.path.isfile(f):
        raise ValueError(f"{path}: not a tracekit dataset (no {MANIFEST}; write one with tracekit export --parquet)")
    with open(f, encoding="utf-8") as fh:
        m = json.load(fh)
    if m.get("format") != "tracekit-parquet" or m.get("version", 0) > 1:
        raise ValueError(f"{f}: format {m.get('format')!r} version {m.get('version')}, not tracekit-parquet 1")
    return m


def session_ids(path):
    """The dataset's session ids, in the order tracekit pools them (sorted)."""
    return sorted(read_manifest(path)["sessions"])


def register(spark, path):
    """Registers every table of the dataset at ``path`` as a temporary view; returns their names."""
    read_manifest(path)
    names = []
    for name in sorted(os.listdir(path)):
        table_dir = os.path.join(path, name)
        if not os.path.isdir(table_dir) or name.startswith((".", "_")):
            continue
        df = spark.read.option("basePath", table_dir).parquet(table_dir)
        df.createOrReplaceTempView(name)
        names.append(name)
    return names


def stdlib_dir():
    """Where the standard library's .sql files are (TRACEKIT_SQL_STDLIB, else the source tree)."""
    d = os.environ.get("TRACEKIT_SQL_STDLIB")
    if d:
        return d
    return os.path.join(os.path.dirname(__file__), "..", "..", "crates", "sql", "stdlib")


def stdlib_views():
    """``[(name, SELECT text)]`` in creation order (the ORDER file)."""
    d = stdlib_dir()
    with open(os.path.join(d, "ORDER"), encoding="utf-8") as fh:
        order = [line.strip() for line in fh if line.strip() and not line.startswith("#")]
    views = []
    for name in order:
        with open(os.path.join(d, name + ".sql"), encoding="utf-8") as fh:
            views.append((name, fh.read()))
    return views


def register_stdlib(spark):
    """Creates the standard library's views over the registered tables."""
    for name, body in stdlib_views():
        spark.sql(body).createOrReplaceTempView(name)


def spark_session(master=None, app="tracekit-fleet"):
    """A SparkSession for the fleet jobs: ``master`` defaults to local[*]; partition values stay text."""
    from pyspark.sql import SparkSession

    master = master or os.environ.get("TRACEKIT_SPARK_MASTER") or "local[*]"
    if master.startswith("local"):
        # On one machine Spark need not look for a routable address (and warn).
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    b = (
        SparkSession.builder.master(master)
        .appName(app)
        .config("spark.sql.sources.partitionColumnTypeInference.enabled", "false")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.session.timeZone", "UTC")
    )
    if master.startswith("local"):
        # Small shuffles on one machine: a few partitions, not Spark's 200.
        b = b.config("spark.sql.shuffle.partitions", "8")
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    _ship_package(spark)
    return spark


def _ship_package(spark):
    """Sends this package to the executors (a cluster's workers do not have it)."""
    import atexit
    import tempfile
    import zipfile

    here = os.path.dirname(os.path.abspath(__file__))
    fd, archive = tempfile.mkstemp(prefix="tracekit_fleet-", suffix=".zip")
    os.close(fd)
    # Executors fetch the archive from the driver while the job runs, so it
    # stays until this process exits, and not longer.
    atexit.register(_remove_quietly, archive)
    with zipfile.ZipFile(archive, "w") as z:
        for f in sorted(os.listdir(here)):
            if f.endswith(".py"):
                z.write(os.path.join(here, f), os.path.join("tracekit_fleet", f))
    spark.sparkContext.addPyFile(archive)


def _remove_quietly(path):
    try:
        os.remove(path)
    except OSError:
        pass
