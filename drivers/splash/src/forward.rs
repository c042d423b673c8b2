//! Forwarding `splash-v5-f64` requests to the f64 build, so that one driver command
//! declares both profiles. The child is found in `$RESCIND_SPLASH_F64_DRIVER`, else next to
//! this executable as `rescind-splash-driver-f64`; it is started at the first f64 request.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

pub struct Forwarder {
    path: Option<PathBuf>,
    child: Option<(Child, ChildStdin, BufReader<ChildStdout>)>,
}

impl Forwarder {
    pub fn new() -> Self {
        let path = if cfg!(feature = "ap") { locate() } else { None };
        Forwarder { path, child: None }
    }

    pub fn available(&self) -> bool {
        self.path.is_some()
    }

    pub fn describe(&self) -> Option<String> {
        self.path.as_ref().map(|path| path.display().to_string())
    }

    fn start(&mut self) -> Option<()> {
        let path = self.path.as_ref()?;
        let mut child = Command::new(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|error| eprintln!("rescind-splash-driver: cannot start {}: {error}", path.display()))
            .ok()?;
        let mut stdin = child.stdin.take()?;
        let mut stdout = BufReader::new(child.stdout.take()?);
        writeln!(stdin, r#"{{"id":0,"op":"hello","args":{{"protocol":"{}"}}}}"#, crate::PROTOCOL).ok()?;
        stdin.flush().ok()?;
        let mut line = String::new();
        stdout.read_line(&mut line).ok()?;
        if !line.contains(crate::F64_PROFILE) {
            eprintln!("rescind-splash-driver: the f64 driver did not declare {}", crate::F64_PROFILE);
            return None;
        }
        self.child = Some((child, stdin, stdout));
        Some(())
    }

    /// The child's reply line to `line`, or `None` when there is no working f64 driver.
    pub fn forward(&mut self, line: &str) -> Option<String> {
        if self.child.is_none() {
            self.start()?;
        }
        let (_, stdin, stdout) = self.child.as_mut()?;
        let mut answer = String::new();
        let sent = writeln!(stdin, "{line}").and_then(|()| stdin.flush());
        if sent.is_err() || stdout.read_line(&mut answer).map_or(true, |n| n == 0) {
            self.close();
            return None;
        }
        Some(answer.trim_end().to_owned())
    }

    pub fn close(&mut self) {
        if let Some((mut child, mut stdin, _)) = self.child.take() {
            let _ = writeln!(stdin, r#"{{"id":0,"op":"bye","args":{{}}}}"#);
            drop(stdin);
            let _ = child.wait();
        }
    }
}

fn locate() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("RESCIND_SPLASH_F64_DRIVER") {
        let path = PathBuf::from(path);
        return path.is_file().then_some(path);
    }
    let exe = std::env::current_exe().ok()?;
    let name = format!("{}-f64", exe.file_name()?.to_str()?);
    let path = exe.with_file_name(name);
    path.is_file().then_some(path)
}
