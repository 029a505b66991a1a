//! A query's text measured before it is parsed: how many lexical tokens it has, and how deep
//! its brackets nest. The parser is recursive descent, so both bound its work and its stack:
//! a query over either limit is refused without being parsed.

/// What one pass over a query's text found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextShape {
    /// Names, numbers, strings and punctuators (commas, white space and comments are not
    /// tokens), counted up to the `stop` given to [`scan`].
    pub tokens: usize,
    /// The deepest nesting of `{`, `[` and `(` (selection sets, lists, input objects,
    /// arguments and variable definitions), outside strings and comments.
    pub nesting: usize,
}

/// Scans `query`, stopping once `stop` tokens are counted (a query that long is refused
/// whatever follows).
pub fn scan(query: &str, stop: usize) -> TextShape {
    let bytes = query.as_bytes();
    let (mut i, mut tokens, mut open, mut nesting) = (0, 0, 0usize, 0);
    while i < bytes.len() && tokens < stop {
        let byte = bytes[i];
        match byte {
            b' ' | b'\t' | b'\n' | b'\r' | b',' => i += 1,
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'"' if bytes[i..].starts_with(b"\"\"\"") => {
                i += 3;
                while i < bytes.len() && !bytes[i..].starts_with(b"\"\"\"") {
                    i += if bytes[i..].starts_with(b"\\\"\"\"") {
                        4
                    } else {
                        1
                    };
                }
                i += 3;
                tokens += 1;
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                tokens += 1;
            }
            b'.' if bytes[i..].starts_with(b"...") => {
                i += 3;
                tokens += 1;
            }
            b'_' | b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' => {
                i += 1;
                while i < bytes.len()
                    && matches!(bytes[i], b'_' | b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'.' | b'+' | b'-')
                {
                    i += 1;
                }
                tokens += 1;
            }
            b'{' | b'[' | b'(' => {
                open += 1;
                nesting = nesting.max(open);
                i += 1;
                tokens += 1;
            }
            b'}' | b']' | b')' => {
                open = open.saturating_sub(1);
                i += 1;
                tokens += 1;
            }
            _ => {
                // A punctuator, or a character the parser will refuse: one token either way.
                i += query[i..].chars().next().map_or(1, char::len_utf8);
                tokens += 1;
            }
        }
    }
    TextShape { tokens, nesting }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(query: &str, stop: usize) -> usize {
        scan(query, stop).tokens
    }

    #[test]
    fn counts_tokens_as_the_grammar_does() {
        assert_eq!(tokens("{ a }", 100), 3);
        let query = "query Q($x: Int = -1.5e3) { a: b(x: $x) @skip(if: true) }";
        assert_eq!(tokens(query, 100), 28);
        assert_eq!(
            tokens("{ a(s: \"x, \\\"y\\\" z\") ...F } # a comment", 100),
            10
        );
        assert_eq!(tokens("{ a(s: \"\"\"block \"\" string\"\"\") }", 100), 8);
        assert_eq!(tokens("{ 影 }", 100), 3);
        assert_eq!(tokens(&"{ a }".repeat(1000), 50), 50, "stops early");
    }

    #[test]
    fn measures_how_deep_brackets_nest() {
        assert_eq!(scan("{ a }", 100).nesting, 1);
        assert_eq!(scan("{ a(x: [[1]]) { b } }", 100).nesting, 4);
        assert_eq!(
            scan("{ a } { b { c } }", 100).nesting,
            2,
            "the deepest, not the sum"
        );
        let value = format!("{{ a(x: {}1{}) }}", "[".repeat(500), "]".repeat(500));
        assert_eq!(scan(&value, 10_000).nesting, 502);
    }

    #[test]
    fn brackets_in_strings_and_comments_do_not_nest() {
        assert_eq!(scan("{ a(s: \"{{[[((\") } # {{{{", 100).nesting, 2);
        assert_eq!(scan("{ a(s: \"\"\"{[(\"\"\") }", 100).nesting, 2);
    }
}
