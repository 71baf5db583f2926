package tkbench;

import java.io.*;
import java.util.ArrayList;

/** Java serialization of an object graph to a byte array and back. */
public final class Serial {
    static final class Item implements Serializable {
        private static final long serialVersionUID = 1L;
        final int id; final String name; Item next; double[] data;
        Item(int id, String name) { this.id = id; this.name = name; }
    }

    static ArrayList<Item> build(int n) {
        ArrayList<Item> l = new ArrayList<>();
        Item prev = null;
        for (int i = 0; i < n; i++) {
            Item it = new Item(i, "item" + (i % 17));
            if (i % 5 == 0) it.data = new double[] { i, i * 0.5 };
            it.next = prev;
            prev = (i % 10 == 9) ? null : it;
            l.add(it);
        }
        return l;
    }

    @SuppressWarnings("unchecked")
    static long roundTrip(ArrayList<Item> l) throws IOException, ClassNotFoundException {
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bos)) { out.writeObject(l); }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bos.toByteArray()))) {
            ArrayList<Item> back = (ArrayList<Item>) in.readObject();
            long s = 0;
            for (Item it : back) { s += it.id; if (it.data != null) s += (long) it.data[1]; if (it.next != null) s++; }
            return s + bos.size();
        }
    }

    public static void main(String[] args) throws Exception {
        int n = Bench.size(args, 20000) / 20;
        long sum = 0;
        for (int rep = 0; rep < 5; rep++) sum += roundTrip(build(n));
        Bench.report("Serial", sum);
    }
}
