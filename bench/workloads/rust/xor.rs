// AB_SIZE × 10 dependent xor-shift steps per call.
use perflab::{black_box, Registry};

fn size() -> u64 {
    std::env::var("AB_SIZE").ok().and_then(|s| s.parse().ok()).filter(|n| *n > 0).unwrap_or(100)
}

#[inline(never)]
fn work(mut x: u64, steps: u64) -> u64 {
    for _ in 0..steps {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    x
}

pub fn register(r: &mut Registry) {
    r.bench("work", |b| {
        let steps = 10 * size();
        b.iter(move || work(black_box(88172645463325252), black_box(steps)))
    });
}
