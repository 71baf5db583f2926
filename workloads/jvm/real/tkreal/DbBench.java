package tkreal;

import java.sql.*;

/**
 * A short SQL workload for the real-application path-profiling benchmarks:
 * an in-memory database (HSQLDB or H2 from Debian, chosen by the JDBC URL),
 * ROWS rows inserted through a prepared statement, an index built, then a
 * few queries (aggregates, a range scan through the index, a grouped join,
 * an update). Usage: DbBench JDBC_URL [ROWS]
 */
public final class DbBench {
    public static void main(String[] args) throws Exception {
        String url = args[0];
        int rows = args.length > 1 ? Integer.parseInt(args[1]) : 20000;
        if (url.startsWith("jdbc:hsqldb:")) Class.forName("org.hsqldb.jdbcDriver");
        if (url.startsWith("jdbc:h2:")) Class.forName("org.h2.Driver");
        try (Connection c = DriverManager.getConnection(url, "sa", "")) {
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE item (id INT PRIMARY KEY, name VARCHAR(40), cat INT, price DECIMAL(10,2), qty INT)");
                s.execute("CREATE TABLE cat (id INT PRIMARY KEY, label VARCHAR(20))");
                for (int i = 0; i < 50; i++) s.execute("INSERT INTO cat VALUES (" + i + ", 'category " + i + "')");
            }
            try (PreparedStatement p = c.prepareStatement("INSERT INTO item VALUES (?, ?, ?, ?, ?)")) {
                long x = 12345;
                for (int i = 0; i < rows; i++) {
                    x = x * 6364136223846793005L + 1442695040888963407L;
                    p.setInt(1, i);
                    p.setString(2, "item-" + Long.toHexString(x >>> 40));
                    p.setInt(3, (int) ((x >>> 33) % 50));
                    p.setBigDecimal(4, java.math.BigDecimal.valueOf((x >>> 20) % 100000, 2));
                    p.setInt(5, (int) ((x >>> 50) % 100));
                    p.executeUpdate();
                }
            }
            try (Statement s = c.createStatement()) {
                s.execute("CREATE INDEX item_cat ON item (cat, qty)");
                long check = 0;
                check += count(s, "SELECT COUNT(*), SUM(qty), MAX(price) FROM item");
                check += count(s, "SELECT id, name FROM item WHERE cat = 7 AND qty > 50 ORDER BY name");
                check += count(s, "SELECT c.label, COUNT(*), AVG(i.price) FROM item i JOIN cat c ON i.cat = c.id GROUP BY c.label ORDER BY c.label");
                check += count(s, "SELECT name FROM item WHERE name LIKE 'item-a%' ORDER BY price DESC");
                s.executeUpdate("UPDATE item SET qty = qty + 1 WHERE cat < 10");
                check += count(s, "SELECT cat, SUM(qty) FROM item GROUP BY cat HAVING SUM(qty) > 1000");
                System.out.println("rows " + rows + " check " + check);
            }
        }
    }

    static long count(Statement s, String q) throws SQLException {
        long n = 0;
        try (ResultSet r = s.executeQuery(q)) {
            int cols = r.getMetaData().getColumnCount();
            while (r.next()) {
                n++;
                for (int i = 1; i <= cols; i++) n += String.valueOf(r.getObject(i)).length();
            }
        }
        return n;
    }
}
