// Plays the first legal action: a C++ bot, to check the sandbox lets one run.
#include <iostream>
#include <string>

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.find("\"type\":\"hello\"") != std::string::npos) {
      std::cout << "{\"type\":\"ready\",\"name\":\"cpp\"}" << std::endl;
    } else if (line.find("\"type\":\"act\"") != std::string::npos) {
      long id = std::stol(line.substr(line.find("\"id\":") + 5));
      size_t start = line.find("\"legal_actions\":[") + 17, end = start;
      for (int depth = 0; end < line.size(); end++) {
        if (line[end] == '{') depth++;
        if (line[end] == '}' && --depth == 0) { end++; break; }
      }
      std::cout << "{\"type\":\"action\",\"id\":" << id
                << ",\"action\":" << line.substr(start, end - start) << "}" << std::endl;
    } else if (line.find("match_end") != std::string::npos) {
      break;
    }
  }
  return 0;
}
