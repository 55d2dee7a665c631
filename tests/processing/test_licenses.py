from aac.processing.licenses import PERMISSIVE, detect_license, license_verdict, parse_allowlist, resolve_spdx


def test_permissive_licenses_are_publishable():
    for spdx in ("MIT", "Apache-2.0", "BSD-3-Clause", "ISC", "0BSD", "Unlicense", "CC0-1.0", "Zlib"):
        assert license_verdict(spdx).keep, spdx


def test_copyleft_and_proprietary_are_not_publishable_with_reason():
    assert not license_verdict("GPL-3.0").keep and license_verdict("GPL-3.0").reason == "license:GPL-3.0"
    assert license_verdict("LicenseRef-Proprietary").reason == "license:LicenseRef-Proprietary"
    assert not license_verdict("CC-BY-NC-4.0").keep


def test_missing_and_unrecognised_licenses_are_not_permissive():
    assert license_verdict(None).reason == "license:none"
    assert license_verdict("").reason == "license:none"
    assert license_verdict("NOASSERTION").reason == "license:unknown"


def test_allowlist_is_configurable_and_case_insensitive():
    assert license_verdict("mit").keep
    only_mit = parse_allowlist("MIT")
    assert license_verdict("MIT", only_mit).keep and not license_verdict("Apache-2.0", only_mit).keep
    assert parse_allowlist("") == PERMISSIVE


def test_license_file_text_is_recognised():
    mit = "Copyright (c) 2024 X\n\nPermission is hereby granted, free of charge, to any person obtaining a copy\nof this software"
    assert detect_license(mit) == "MIT"
    assert detect_license("Apache License\nVersion 2.0, January 2004\nhttp://www.apache.org/licenses/") == "Apache-2.0"
    assert detect_license("GNU GENERAL PUBLIC LICENSE\nVersion 3, 29 June 2007") == "GPL-3.0"
    assert detect_license("GNU AFFERO GENERAL PUBLIC LICENSE Version 3") == "AGPL-3.0"
    assert detect_license("All rights reserved.") is None


def test_metadata_wins_and_license_text_is_the_fallback():
    assert resolve_spdx("MIT", "GPL-3.0") == "MIT"
    assert resolve_spdx(None, "Apache-2.0") == "Apache-2.0"
    assert resolve_spdx(None, "NOASSERTION", "Permission is hereby granted, free of charge, to any person obtaining a copy") == "MIT"
    assert resolve_spdx(None, None, None) is None
