use std::os::unix::fs::PermissionsExt;

use gateway_host::update::archive::extract_binary;

use super::fake_release::tar_gz;

#[test]
fn the_binary_entry_is_extracted_executable_and_nothing_else() {
    let dir = std::env::temp_dir().join(format!("sb-archive-{}-{}", std::process::id(), test_support::free_port()));
    std::fs::create_dir_all(&dir).expect("dir");
    let archive = dir.join("a.tar.gz");
    std::fs::write(&archive, tar_gz(&[("pkg/README.md", b"readme"), ("pkg/switchboard", b"binary")])).expect("write");

    let dest = dir.join("out");
    assert_eq!(extract_binary(&archive, "pkg/switchboard", &dest).expect("extract"), 6);
    assert_eq!(std::fs::read(&dest).expect("read"), b"binary");
    assert_eq!(std::fs::metadata(&dest).expect("meta").permissions().mode() & 0o777, 0o755);

    let missing = extract_binary(&archive, "pkg/other", &dir.join("out2")).expect_err("no such entry");
    assert!(missing.to_string().contains("holds no pkg/other"), "{missing}");
    std::fs::write(&archive, b"not gzip").expect("write");
    assert!(extract_binary(&archive, "pkg/switchboard", &dir.join("out3")).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}
