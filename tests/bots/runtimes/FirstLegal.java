/* Plays the first legal action: a JVM bot, to check the sandbox lets the JVM start. With
   --sizes it first says on stderr, as one JSON line, the heap and processors the JVM sized
   itself for. */
import java.io.*;
public class FirstLegal {
  public static void main(String[] a) throws Exception {
    if (a.length > 0 && a[0].equals("--sizes")) {
      Runtime r = Runtime.getRuntime();
      System.err.println("{\"heap\":" + r.maxMemory() + ",\"cpus\":" + r.availableProcessors() + "}");
    }
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    String line;
    while ((line = in.readLine()) != null) {
      if (line.contains("\"type\":\"hello\"")) { System.out.println("{\"type\":\"ready\",\"name\":\"java\"}"); System.out.flush(); }
      else if (line.contains("\"type\":\"act\"")) {
        int id = Integer.parseInt(line.replaceAll(".*\"id\":(\\d+).*", "$1"));
        String legal = line.substring(line.indexOf("\"legal_actions\":[") + 17);
        int depth = 0, end = 0;
        for (int i = 0; i < legal.length(); i++) { char c = legal.charAt(i); if (c=='{') depth++; if (c=='}') { depth--; if (depth==0) { end = i+1; break; } } }
        System.out.println("{\"type\":\"action\",\"id\":" + id + ",\"action\":" + legal.substring(0, end) + "}"); System.out.flush();
      } else if (line.contains("match_end")) break;
    }
  }
}
