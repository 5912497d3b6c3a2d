//! PostgreSQL URLs for `pg_dump`/`pg_restore`: the password moves from the command line (where
//! `ps` shows it) into `PGPASSWORD`, and the database name can be swapped (scratch databases).

use percent_encoding::percent_decode_str;

/// `postgres://user[:password]@host[:port]/database[?query]`, split apart.
#[derive(Clone)]
pub(crate) struct PgUrl {
    /// `postgres://user@host:port` (no password).
    base: String,
    password: Option<String>,
    database: String,
    query: String,
}

impl std::fmt::Debug for PgUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PgUrl({}/{})", self.base, self.database)
    }
}

impl PgUrl {
    pub(crate) fn parse(url: &str) -> Option<Self> {
        let (scheme, rest) = url.split_once("://")?;
        let (authority_path, query) = rest.split_once('?').unwrap_or((rest, ""));
        let (authority, database) = authority_path.split_once('/').unwrap_or((authority_path, ""));
        let (userinfo, host) = match authority.rsplit_once('@') {
            Some((userinfo, host)) => (Some(userinfo), host),
            None => (None, authority),
        };
        let (user, password) = match userinfo.map(|u| u.split_once(':').unwrap_or((u, ""))) {
            Some((user, password)) if !password.is_empty() => {
                (Some(user), Some(percent_decode_str(password).decode_utf8_lossy().into_owned()))
            }
            Some((user, _)) => (Some(user), None),
            None => (None, None),
        };
        let base = match user {
            Some(user) => format!("{scheme}://{user}@{host}"),
            None => format!("{scheme}://{host}"),
        };
        Some(Self { base, password, database: database.to_owned(), query: query.to_owned() })
    }

    pub(crate) fn database(&self) -> &str {
        &self.database
    }

    /// The same server and options, another database.
    pub(crate) fn with_database(&self, database: &str) -> Self {
        Self { database: database.to_owned(), ..self.clone() }
    }

    /// Without the search path option (a scratch database restores whole schemas).
    pub(crate) fn without_query(&self) -> Self {
        Self { query: String::new(), ..self.clone() }
    }

    /// The URL without its password (safe on a command line).
    pub(crate) fn public_url(&self) -> String {
        if self.query.is_empty() {
            format!("{}/{}", self.base, self.database)
        } else {
            format!("{}/{}?{}", self.base, self.database, self.query)
        }
    }

    /// The URL with its password, for sqlx.
    pub(crate) fn full_url(&self) -> String {
        let Some(password) = &self.password else { return self.public_url() };
        let encoded = percent_encoding::utf8_percent_encode(password, percent_encoding::NON_ALPHANUMERIC);
        let with_password = match self.base.split_once("://") {
            Some((scheme, rest)) => match rest.split_once('@') {
                Some((user, host)) => format!("{scheme}://{user}:{encoded}@{host}"),
                None => self.base.clone(),
            },
            None => self.base.clone(),
        };
        if self.query.is_empty() {
            format!("{with_password}/{}", self.database)
        } else {
            format!("{with_password}/{}?{}", self.database, self.query)
        }
    }

    /// Sets `PGPASSWORD` on a child process when the URL had one.
    pub(crate) fn apply_password(&self, command: &mut tokio::process::Command) {
        if let Some(password) = &self.password {
            command.env("PGPASSWORD", password);
        }
    }
}
