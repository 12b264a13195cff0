// Plays the first legal action: a Rust bot, to check the sandbox lets one run.
use std::io::{self, BufRead, Write};

fn main() {
    let mut out = io::stdout();
    for line in io::stdin().lock().lines() {
        let line = line.expect("read stdin");
        if line.contains("\"type\":\"hello\"") {
            writeln!(out, "{{\"type\":\"ready\",\"name\":\"rust\"}}").unwrap();
        } else if line.contains("\"type\":\"act\"") {
            let rest = &line[line.find("\"id\":").unwrap() + 5..];
            let digits = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
            let id: u64 = rest[..digits].parse().unwrap();
            let legal = &line[line.find("\"legal_actions\":[").unwrap() + 17..];
            let (mut depth, mut end) = (0, legal.len());
            for (i, c) in legal.char_indices() {
                if c == '{' { depth += 1; }
                if c == '}' { depth -= 1; if depth == 0 { end = i + 1; break; } }
            }
            writeln!(out, "{{\"type\":\"action\",\"id\":{},\"action\":{}}}", id, &legal[..end]).unwrap();
        } else if line.contains("match_end") {
            break;
        }
        out.flush().unwrap();
    }
}
