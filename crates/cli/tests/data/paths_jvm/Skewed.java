// A long-running method with many skewed branches: the adaptive model has
// much to learn in run 1 that run 2 gets for free from the updated model.
public class Skewed {
    static long work(int n) {
        long acc = 0;
        for (int i = 1; i <= n; i++) {
            if (i % 97 == 0) acc += 1;
            if (i % 89 == 0) acc += 2;
            if (i % 83 == 0) acc += 3;
            if (i % 79 == 0) acc += 4;
            if (i % 73 == 0) acc += 5;
            if (i % 71 == 0) acc += 6;
            if (i % 67 == 0) acc += 7;
            if (i % 61 == 0) acc += 8;
            if (i % 59 == 0) acc += 9;
            if (i % 53 == 0) acc += 10;
            switch (i % 50) {
                case 7: acc ^= 1; break;
                case 13: acc ^= 2; break;
                default: acc++;
            }
        }
        return acc;
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 3000;
        System.out.println(work(n));
    }
}
