fn main() { println!("{}", splash_protocol::PROTOCOL_VERSION); }
