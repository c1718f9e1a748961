//! A one-thread executor shared by the Rust ports of the file I/O seeds: `run` hands a closure to the
//! pool thread and blocks until its result comes back — the shape of awaiting a blocking call scheduled
//! on a thread pool (std has no async runtime). Brought in with
//! `#[path = "../../common/rust/seed_executor.rs"] mod seed_executor;`.
use std::any::Any;
use std::sync::mpsc;
use std::thread;

pub struct Executor {
    jobs: Option<mpsc::Sender<Job>>,
    done: mpsc::Receiver<Box<dyn Any + Send>>,
    thread: Option<thread::JoinHandle<()>>,
}

type Job = Box<dyn FnOnce() -> Box<dyn Any + Send> + Send>;

impl Executor {
    pub fn new() -> Self {
        let (jobs, rx) = mpsc::channel::<Job>();
        let (tx, done) = mpsc::channel();
        let thread = thread::spawn(move || {
            for job in rx {
                if tx.send(job()).is_err() {
                    break;
                }
            }
        });
        Executor { jobs: Some(jobs), done, thread: Some(thread) }
    }

    pub fn run<T: Send + 'static>(&self, f: impl FnOnce() -> T + Send + 'static) -> T {
        let job: Job = Box::new(move || Box::new(f()) as Box<dyn Any + Send>);
        self.jobs.as_ref().unwrap().send(job).expect("executor thread gone");
        *self.done.recv().expect("executor job panicked").downcast::<T>().unwrap()
    }
}

impl Drop for Executor {
    fn drop(&mut self) {
        drop(self.jobs.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
