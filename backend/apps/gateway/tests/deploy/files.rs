//! Reading the deployment files: a small Dockerfile model and the compose YAML.

use std::path::{Path, PathBuf};

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

pub fn read(path: &str) -> String {
    let full = repo_root().join(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

pub fn yaml(path: &str) -> serde_json::Value {
    serde_norway::from_str(&read(path)).unwrap_or_else(|e| panic!("{path} is not YAML: {e}"))
}

/// One instruction: `COPY --from=backend /out/switchboard /usr/local/bin/switchboard` is
/// `("COPY", "--from=backend /out/switchboard /usr/local/bin/switchboard")`.
#[derive(Debug, Clone)]
pub struct Instruction {
    pub keyword: String,
    pub args: String,
}

impl Instruction {
    /// The arguments as a JSON array (exec form), e.g. `ENTRYPOINT ["/bin/x"]`.
    pub fn exec_form(&self) -> Vec<String> {
        let json = self.args.trim_start_matches(|c: char| c != '[');
        serde_json::from_str(json).unwrap_or_else(|e| panic!("{} {} is not in exec form: {e}", self.keyword, self.args))
    }

    /// Whitespace-separated words.
    pub fn words(&self) -> Vec<&str> {
        self.args.split_whitespace().collect()
    }
}

/// A build stage: `FROM image AS name` and its instructions.
#[derive(Debug, Clone)]
pub struct Stage {
    pub name: String,
    pub image: String,
    pub instructions: Vec<Instruction>,
}

impl Stage {
    pub fn all(&self, keyword: &str) -> Vec<&Instruction> {
        self.instructions.iter().filter(|i| i.keyword == keyword).collect()
    }

    pub fn one(&self, keyword: &str) -> &Instruction {
        let found = self.all(keyword);
        assert_eq!(found.len(), 1, "stage {} should have exactly one {keyword}: {found:?}", self.name);
        found[0]
    }

    /// Every `RUN` joined, for "does the stage run X" questions.
    pub fn runs(&self) -> String {
        self.all("RUN").iter().map(|i| i.args.as_str()).collect::<Vec<_>>().join(" && ")
    }

    /// `ENV` pairs in order (`K=V` form, several per instruction).
    pub fn env(&self) -> Vec<(String, String)> {
        self.all("ENV")
            .iter()
            .flat_map(|i| i.words().into_iter().map(str::to_owned).collect::<Vec<_>>())
            .map(|pair| {
                let (k, v) = pair.split_once('=').unwrap_or_else(|| panic!("ENV {pair} is not K=V"));
                (k.to_owned(), v.trim_matches('"').to_owned())
            })
            .collect()
    }
}

#[derive(Debug, Clone)]
pub struct Dockerfile {
    /// `ARG` instructions before the first `FROM`, with their defaults.
    pub global_args: Vec<(String, String)>,
    pub stages: Vec<Stage>,
}

impl Dockerfile {
    pub fn load() -> Self {
        Self::parse(&read("deploy/Dockerfile"))
    }

    /// Joins `\` continuations, drops comments and blank lines, splits stages at `FROM`.
    pub fn parse(text: &str) -> Self {
        let mut logical = Vec::new();
        let mut current = String::new();
        for line in text.lines() {
            let trimmed = line.trim();
            if trimmed.starts_with('#') || (trimmed.is_empty() && current.is_empty()) {
                continue;
            }
            match trimmed.strip_suffix('\\') {
                Some(head) => {
                    current.push_str(head.trim_end());
                    current.push(' ');
                }
                None => {
                    current.push_str(trimmed);
                    logical.push(std::mem::take(&mut current));
                }
            }
        }
        let mut file = Self { global_args: Vec::new(), stages: Vec::new() };
        for line in logical.into_iter().filter(|l| !l.trim().is_empty()) {
            let (keyword, args) = line.split_once(' ').unwrap_or((&line, ""));
            let instruction = Instruction { keyword: keyword.to_ascii_uppercase(), args: args.trim().to_owned() };
            if instruction.keyword == "FROM" {
                let words = instruction.words();
                let name = match words.as_slice() {
                    [_, as_kw, name] if as_kw.eq_ignore_ascii_case("as") => (*name).to_owned(),
                    _ => panic!("every stage needs a name: FROM {}", instruction.args),
                };
                file.stages.push(Stage { name, image: words[0].to_owned(), instructions: Vec::new() });
            } else if let Some(stage) = file.stages.last_mut() {
                stage.instructions.push(instruction);
            } else if instruction.keyword == "ARG" {
                let (k, v) = instruction.args.split_once('=').unwrap_or((&instruction.args, ""));
                file.global_args.push((k.to_owned(), v.to_owned()));
            }
        }
        file
    }

    pub fn stage(&self, name: &str) -> &Stage {
        self.stages.iter().find(|s| s.name == name).unwrap_or_else(|| panic!("no stage {name}"))
    }

    pub fn global_arg(&self, name: &str) -> String {
        self.global_args
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("no global ARG {name}"))
    }

    /// `${NAME}` replaced by the global ARG defaults.
    pub fn expand(&self, text: &str) -> String {
        self.global_args.iter().fold(text.to_owned(), |acc, (k, v)| acc.replace(&format!("${{{k}}}"), v))
    }
}

/// Whether `path` (relative to the context) is excluded by `.dockerignore` (top-level patterns
/// and `**/name`, which is all ours uses).
pub fn docker_ignored(ignore: &str, path: &Path) -> bool {
    let path = path.to_string_lossy();
    ignore.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).any(|pattern| {
        let pattern = pattern.trim_end_matches('/');
        match pattern.strip_prefix("**/") {
            Some(name) => path.split('/').any(|part| part == name),
            None => path == pattern || path.starts_with(&format!("{pattern}/")),
        }
    })
}
