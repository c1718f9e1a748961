//! A tiny library to benchmark: word counting three ways.

/// Counts words by splitting on whitespace (allocation-free iterator).
pub fn count_split(text: &str) -> usize {
    text.split_whitespace().count()
}

/// Counts words by scanning bytes for word starts.
pub fn count_bytes(text: &str) -> usize {
    let mut n = 0;
    let mut in_word = false;
    for &b in text.as_bytes() {
        let ws = b == b' ' || b == b'\n' || b == b'\t' || b == b'\r';
        if !ws && !in_word {
            n += 1;
        }
        in_word = !ws;
    }
    n
}

/// Counts words by collecting them into a Vec first (allocates).
pub fn count_collect(text: &str) -> usize {
    text.split_whitespace().collect::<Vec<&str>>().len()
}

/// A deterministic text of `words` words.
pub fn sample_text(words: usize) -> String {
    const WORDS: [&str; 8] = ["alpha", "be", "gamma", "delta", "epsilon", "z", "eta", "theta"];
    let mut s = String::new();
    for i in 0..words {
        if i > 0 {
            s.push(if i % 11 == 0 { '\n' } else { ' ' });
        }
        s.push_str(WORDS[(i * 7 + i / 3) % WORDS.len()]);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agree() {
        let t = sample_text(1000);
        assert_eq!(count_split(&t), 1000);
        assert_eq!(count_bytes(&t), 1000);
        assert_eq!(count_collect(&t), 1000);
    }
}
