//! A fake upstream for tests, end-to-end runs and benchmarks: the ChatGPT Codex backend, OpenAI
//! OAuth and the xAI API, over real sockets. Never shipped in the product image.
