//! Reading script replies: every script answers an array whose first item names the outcome.

use ::redis::Value;
use gateway_core::coordination::CoordinationError;

pub(crate) struct Reply {
    script: &'static str,
    items: std::vec::IntoIter<Value>,
}

impl Reply {
    pub(crate) fn new(script: &'static str, value: Value) -> Result<Self, CoordinationError> {
        match value {
            Value::Array(items) => Ok(Self { script, items: items.into_iter() }),
            other => Err(CoordinationError::Protocol(format!("script {script} answered {other:?}"))),
        }
    }

    fn next(&mut self) -> Result<Value, CoordinationError> {
        self.items
            .next()
            .ok_or_else(|| CoordinationError::Protocol(format!("script {} answered too few items", self.script)))
    }

    pub(crate) fn bytes(&mut self) -> Result<Vec<u8>, CoordinationError> {
        match self.next()? {
            Value::BulkString(bytes) => Ok(bytes),
            Value::SimpleString(text) => Ok(text.into_bytes()),
            Value::Int(number) => Ok(number.to_string().into_bytes()),
            other => Err(self.unexpected("bytes", &other)),
        }
    }

    pub(crate) fn text(&mut self) -> Result<String, CoordinationError> {
        let bytes = self.bytes()?;
        String::from_utf8(bytes)
            .map_err(|_| CoordinationError::Protocol(format!("script {} answered non-UTF-8 text", self.script)))
    }

    pub(crate) fn i64(&mut self) -> Result<i64, CoordinationError> {
        match self.next()? {
            Value::Int(number) => Ok(number),
            Value::BulkString(bytes) => std::str::from_utf8(&bytes)
                .ok()
                .and_then(|text| text.parse::<i64>().ok())
                .ok_or_else(|| CoordinationError::Protocol(format!("script {} answered a non-integer", self.script))),
            other => Err(self.unexpected("integer", &other)),
        }
    }

    pub(crate) fn u64(&mut self) -> Result<u64, CoordinationError> {
        let value = self.i64()?;
        u64::try_from(value)
            .map_err(|_| CoordinationError::Protocol(format!("script {} answered {value} < 0", self.script)))
    }

    pub(crate) fn u32(&mut self) -> Result<u32, CoordinationError> {
        let value = self.i64()?;
        u32::try_from(value)
            .map_err(|_| CoordinationError::Protocol(format!("script {} answered {value} out of range", self.script)))
    }

    pub(crate) fn has_more(&self) -> bool {
        self.items.len() > 0
    }

    pub(crate) fn unknown(&self, outcome: &str) -> CoordinationError {
        CoordinationError::Protocol(format!("script {} answered unknown outcome {outcome:?}", self.script))
    }

    fn unexpected(&self, wanted: &str, got: &Value) -> CoordinationError {
        CoordinationError::Protocol(format!("script {} answered {got:?} where {wanted} was expected", self.script))
    }
}
