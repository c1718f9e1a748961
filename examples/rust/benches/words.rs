//! perflab benchmarks of textstats: `perflab run examples/rust --runtimes rust-stable,rust-nightly`
use perflab::{black_box, Bencher, Registry};
use textstats::{count_bytes, count_collect, count_split, sample_text};

fn split(b: &mut Bencher) {
    let text = sample_text(b.param_as("words"));
    b.iter(move || count_split(black_box(&text)));
}

fn bytes(b: &mut Bencher) {
    let text = sample_text(b.param_as("words"));
    b.iter(move || count_bytes(black_box(&text)));
}

fn collect(b: &mut Bencher) {
    let text = sample_text(b.param_as("words"));
    b.iter(move || count_collect(black_box(&text)));
}

pub fn register(r: &mut Registry) {
    let words = [100, 10_000];
    r.bench("split_whitespace", split).param("words", &words).baseline()
        .description("str::split_whitespace().count()");
    r.bench("byte_scan", bytes).param("words", &words);
    r.bench("collect_vec", collect).param("words", &words).category("alloc");
}
