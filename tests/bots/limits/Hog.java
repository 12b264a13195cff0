/* A JVM bot that goes over one of its seat's bounds when greeted, before it says ready:
   "memory" keeps a megabyte more of heap at a time (run it with a heap bound above the seat's,
   -Xmx512m, as an author sizing the JVM for a larger machine would), "processes" starts
   threads for a pool far larger than the seat allows. The runtime's own words go where the
   JVM puts them: its fatal-error report and thread warnings on stdout, an uncaught error on
   stderr. */
import java.io.*;
import java.util.*;
public class Hog {
  public static void main(String[] a) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    in.readLine();  // hello
    if (a[0].equals("memory")) {
      List<byte[]> kept = new ArrayList<>();
      for (;;) { byte[] mb = new byte[1 << 20]; Arrays.fill(mb, (byte) 1); kept.add(mb); }
    }
    for (int i = 0; i < 256; i++) {
      Thread worker = new Thread(() -> { try { Thread.sleep(60000); } catch (InterruptedException e) { } });
      worker.setDaemon(true);
      worker.start();
    }
    System.out.println("{\"type\":\"ready\",\"name\":\"hog\"}");
  }
}
