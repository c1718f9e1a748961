//! The worker driven over a real loopback socket, in-process: hello, load, setup, every stage,
//! params by index, panics, state and protocol errors, version, bye.
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;

use perflab::json::{self, Json};
use perflab::{black_box, Bencher, Registry};

fn sized(b: &mut Bencher) {
    let n: usize = b.param_as("n");
    b.iter(move || vec![0u64; black_box(n)]);
}

fn register(r: &mut Registry) {
    r.bench("noop", |b| b.iter(|| ()));
    r.bench("add", |b| {
        let (x, y) = (black_box(1u64), black_box(2u64));
        b.iter(move || x + y)
    });
    r.bench("sized", sized).param("n", &[1, 10, 100]);
    r.bench("boom", |b| b.iter(|| if black_box(true) { panic!("boom") }));
    r.bench("base", |b| b.iter(|| ())).baseline().ops(4).category("c").description("d")
        .meta("seed", "002").meta("section", "Seek").meta("scenario", true).meta("n", 3).meta("seed", "003");
    r.bench("no_iter", |_b| {});
    r.bench("sort", |b| {
        let n: usize = b.param_as("n");
        b.iter_batched(move || (0..n as u64).rev().collect::<Vec<u64>>(), |mut v| { v.reverse(); v })
    })
    .param("n", &[1000])
    .iteration_setup();
    r.bench("trap", |b| {
        let n = black_box(5000u64);
        b.iter(move || (0..n).fold(0u64, |s, i| s.wrapping_add((i * i) ^ (s >> 3))))
    });
}

struct Host {
    reader: BufReader<std::net::TcpStream>,
    writer: std::net::TcpStream,
    next: i64,
}

impl Host {
    fn read(&mut self) -> Json {
        let mut line = String::new();
        self.reader.read_line(&mut line).unwrap();
        assert!(line.ends_with('\n'));
        json::parse(line.trim_end()).unwrap()
    }
    fn raw(&mut self, line: &str) -> Json {
        self.writer.write_all(line.as_bytes()).unwrap();
        self.writer.write_all(b"\n").unwrap();
        self.read()
    }
    fn req(&mut self, body: &str) -> Json {
        self.next += 1;
        let sep = if body.is_empty() { "" } else { "," };
        let line = format!("{{\"v\":2,\"id\":{}{}{}}}", self.next, sep, body);
        let r = self.raw(&line);
        assert_eq!(r.get("id"), Some(&Json::Int(self.next)), "{:?}", r);
        assert_eq!(r.get("v"), Some(&Json::Int(2)));
        r
    }
}

fn kind(r: &Json) -> &str {
    r.get("type").and_then(Json::as_str).unwrap()
}
fn err_kind(r: &Json) -> &str {
    assert_eq!(kind(r), "error", "{:?}", r);
    r.get("error").unwrap().get("kind").and_then(Json::as_str).unwrap()
}
fn ints(r: &Json, field: &str) -> Vec<i64> {
    match r.get(field) {
        Some(Json::Arr(a)) => a.iter().map(|x| x.as_i64().unwrap()).collect(),
        _ => panic!("no {}: {:?}", field, r),
    }
}
fn ns(r: &Json) -> Vec<i64> {
    ints(r, "ns")
}
/// A `with_overhead` workload run: the workload and the overhead samples, one of each per iteration.
fn run_with_overhead(h: &mut Host, invocations: i64, iterations: usize) -> (Vec<i64>, Vec<i64>) {
    run_paired(h, invocations, iterations, false)
}
/// `run_with_overhead`, the overhead iteration before its workload one with `overhead_first`.
fn run_paired(h: &mut Host, invocations: i64, iterations: usize, overhead_first: bool) -> (Vec<i64>, Vec<i64>) {
    let r = h.req(&format!(
        r#""type":"run","stage":"workload","invocations":{},"iterations":{},"with_overhead":true,"overhead_first":{}"#,
        invocations, iterations, overhead_first
    ));
    assert_eq!(kind(&r), "samples", "{:?}", r);
    assert_eq!(r.get("stage").and_then(Json::as_str), Some("workload"));
    assert_eq!(r.get("invocations"), Some(&Json::Int(invocations)));
    let (work, over) = (ns(&r), ints(&r, "overhead_ns"));
    assert_eq!((work.len(), over.len()), (iterations, iterations), "{:?}", r);
    assert!(over.iter().all(|&x| x >= 0), "{:?}", r);
    check_cpu(&work, &ints(&r, "cpu_ns"));
    check_cpu(&over, &ints(&r, "overhead_cpu_ns"));
    (work, over)
}
/// One CPU time per iteration, at most the wall time plus the host's 1 ms slack (the CPU clock is
/// read just outside the wall-clock reads).
fn check_cpu(wall: &[i64], cpu: &[i64]) {
    assert_eq!(wall.len(), cpu.len(), "{:?} {:?}", wall, cpu);
    for (w, c) in wall.iter().zip(cpu) {
        assert!(*c >= 0 && *c <= w + 1_000_000, "cpu {:?} vs wall {:?}", cpu, wall);
    }
}

#[test]
fn protocol_exchange() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    std::env::set_var("PERFLAB_CONNECT", listener.local_addr().unwrap().to_string());
    std::env::set_var("PERFLAB_TOKEN", "0123456789abcdef0123456789abcdef");
    let worker = std::thread::spawn(|| {
        let mut r = Registry::new();
        register(&mut r);
        perflab::run(r)
    });
    let (sock, _) = listener.accept().unwrap();
    let mut h = Host { reader: BufReader::new(sock.try_clone().unwrap()), writer: sock, next: 0 };

    let hello = h.read();
    assert_eq!(kind(&hello), "hello");
    assert_eq!(hello.get("token").and_then(Json::as_str), Some("0123456789abcdef0123456789abcdef"));
    assert_eq!(hello.get("language").and_then(Json::as_str), Some("rust"));
    assert!(hello.get("clock").unwrap().get("resolution_ns").and_then(Json::as_i64).unwrap() >= 1);
    let cpu_clock = hello.get("cpu_clock").unwrap();
    assert_eq!(cpu_clock.get("scope").and_then(Json::as_str), Some("thread"), "{:?}", hello);
    assert!(cpu_clock.get("resolution_ns").and_then(Json::as_i64).unwrap() >= 1);
    let Some(Json::Arr(caps)) = hello.get("capabilities") else { panic!("{:?}", hello) };
    assert!(caps.contains(&Json::Str("with_overhead".into())), "{:?}", caps);
    assert!(caps.contains(&Json::Str("overhead_first".into())), "{:?}", caps);

    // state error before anything is set up
    assert_eq!(err_kind(&h.req(r#""type":"run","stage":"workload","invocations":1,"iterations":1"#)), "state");

    let loaded = h.req(r#""type":"load","paths":[],"root":"""#);
    assert_eq!(kind(&loaded), "loaded");
    let Some(Json::Arr(benches)) = loaded.get("benchmarks") else { panic!() };
    assert_eq!(benches.len(), 8);
    let base = benches.iter().find(|b| b.get("name").and_then(Json::as_str) == Some("base")).unwrap();
    assert_eq!(base.get("baseline"), Some(&Json::Bool(true)));
    assert_eq!(base.get("ops_per_invoke"), Some(&Json::Int(4)));
    assert_eq!(base.get("id").and_then(Json::as_str), Some("worker.base"));
    assert!(base.get("file").and_then(Json::as_str).unwrap().ends_with("tests/worker.rs"));
    // meta: free-form, in the order given, a repeated key replaced; empty when none was set
    assert_eq!(
        json::to_string(base.get("meta").unwrap()),
        r#"{"seed":"003","section":"Seek","scenario":true,"n":3}"#
    );
    let noop = benches.iter().find(|b| b.get("name").and_then(Json::as_str) == Some("noop")).unwrap();
    assert_eq!(noop.get("meta"), Some(&Json::Obj(vec![])));

    assert_eq!(kind(&h.req(r#""type":"setup","benchmark":"worker.sized","params":{"n":2}"#)), "ready");
    for stage in ["pilot", "warmup", "overhead", "workload"] {
        let r = h.req(&format!(r#""type":"run","stage":"{}","invocations":7,"iterations":3"#, stage));
        assert_eq!(kind(&r), "samples");
        assert_eq!(ns(&r).len(), 3);
        check_cpu(&ns(&r), &ints(&r, "cpu_ns"));
        assert_eq!(r.get("invocations"), Some(&Json::Int(7)));
        assert_eq!(r.get("overhead_ns"), None, "{:?}", r);
    }
    // with_overhead: one overhead sample per workload sample, in the same reply
    run_with_overhead(&mut h, 7, 3);
    run_with_overhead(&mut h, 1, 1);
    run_paired(&mut h, 7, 3, true);
    let r = h.req(r#""type":"run","stage":"workload","invocations":7,"iterations":2,"with_overhead":false"#);
    assert_eq!((ns(&r).len(), r.get("overhead_ns")), (2, None), "{:?}", r);
    for stage in ["pilot", "warmup", "overhead", "diagnose"] {
        let r = h.req(&format!(r#""type":"run","stage":"{}","invocations":7,"iterations":1,"with_overhead":true"#, stage));
        assert_eq!(err_kind(&r), "protocol", "{}", stage);
        let m = r.get("error").unwrap().get("message").and_then(Json::as_str).unwrap();
        assert!(m.contains("with_overhead"), "{}", m);
    }
    // the worker stays usable after the refusal
    assert_eq!(ns(&h.req(r#""type":"run","stage":"workload","invocations":7,"iterations":1"#)).len(), 1);
    let d = h.req(r#""type":"run","stage":"diagnose","invocations":5,"iterations":2"#);
    assert_eq!(kind(&d), "diagnostics");
    assert_eq!(d.get("allocs"), Some(&Json::Int(10)));
    assert_eq!(d.get("alloc_bytes"), Some(&Json::Int(10 * 100 * 8)));
    assert!(matches!(d.get("code_size"), Some(Json::Int(n)) if *n > 0), "{:?}", d);
    assert_eq!(kind(&h.req(r#""type":"teardown""#)), "done");

    assert_eq!(err_kind(&h.req(r#""type":"setup","benchmark":"worker.sized","params":{"n":3}"#)), "not_found");
    assert_eq!(err_kind(&h.req(r#""type":"setup","benchmark":"worker.sized","params":{}"#)), "not_found");
    assert_eq!(err_kind(&h.req(r#""type":"setup","benchmark":"nope","params":{}"#)), "not_found");
    assert_eq!(err_kind(&h.req(r#""type":"setup","benchmark":"worker.no_iter","params":{}"#)), "exception");

    // a panic is an exception with its message and location; the worker stays usable
    assert_eq!(kind(&h.req(r#""type":"setup","benchmark":"worker.boom","params":{}"#)), "ready");
    let e = h.req(r#""type":"run","stage":"workload","invocations":1,"iterations":1"#);
    assert_eq!(err_kind(&e), "exception");
    let err = e.get("error").unwrap();
    assert!(err.get("message").and_then(Json::as_str).unwrap().contains("boom"));
    assert!(err.get("line").and_then(Json::as_i64).unwrap() > 0);
    let e = h.req(r#""type":"run","stage":"workload","invocations":1,"iterations":1,"with_overhead":true"#);
    assert_eq!(err_kind(&e), "exception", "{:?}", e);

    // per-iteration setup: inputs prepared outside timing, one per invocation
    let sort = benches.iter().find(|b| b.get("name").and_then(Json::as_str) == Some("sort")).unwrap();
    assert_eq!(sort.get("iteration_setup"), Some(&Json::Bool(true)));
    assert_eq!(base.get("iteration_setup"), Some(&Json::Bool(false)));
    assert_eq!(kind(&h.req(r#""type":"setup","benchmark":"worker.sort","params":{"n":0}"#)), "ready");
    for stage in ["overhead", "workload"] {
        let r = h.req(&format!(r#""type":"run","stage":"{}","invocations":3,"iterations":2"#, stage));
        assert_eq!(ns(&r).len(), 2);
    }
    run_with_overhead(&mut h, 3, 2);
    let d = h.req(r#""type":"run","stage":"diagnose","invocations":1,"iterations":2"#);
    assert_eq!(d.get("allocs"), Some(&Json::Int(0)), "{:?}", d); // the setup's Vec is not counted
    assert!(matches!(d.get("code_size"), Some(Json::Int(n)) if *n > 0), "{:?}", d);

    // dead-code trap: an unused pure computation is measured, far above the overhead loop
    assert_eq!(kind(&h.req(r#""type":"setup","benchmark":"worker.trap","params":{}"#)), "ready");
    let mut work = ns(&h.req(r#""type":"run","stage":"workload","invocations":100,"iterations":5"#));
    let mut over = ns(&h.req(r#""type":"run","stage":"overhead","invocations":100,"iterations":5"#));
    work.sort();
    over.sort();
    assert!(work[2] > 20 * over[2], "trap {:?} vs overhead {:?}", work, over);
    // with_overhead's overhead samples are the empty loop too, not a second workload iteration
    let (mut work, mut over) = run_with_overhead(&mut h, 100, 5);
    work.sort();
    over.sort();
    assert!(work[2] > 20 * over[2], "with_overhead: trap {:?} vs overhead {:?}", work, over);

    // malformed input
    assert_eq!(err_kind(&h.raw("this is not json")), "protocol");
    assert_eq!(err_kind(&h.raw("[1,2,3]")), "protocol");
    assert_eq!(err_kind(&h.req(r#""type":"frobnicate""#)), "protocol");
    assert_eq!(err_kind(&h.req(r#""type":"run","invocations":1,"iterations":1"#)), "protocol");
    assert_eq!(err_kind(&h.req(r#""type":"run","stage":"workload","invocations":0,"iterations":1"#)), "protocol");
    assert_eq!(err_kind(&h.req(r#""type":"run","stage":"sideways","invocations":1,"iterations":1"#)), "protocol");

    assert_eq!(kind(&h.req(r#""type":"bye""#)), "done");
    assert_eq!(worker.join().unwrap(), 0);
}
