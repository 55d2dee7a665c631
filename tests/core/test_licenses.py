import importlib.metadata
import sys
from pathlib import Path

import duckdb
import pytest

from aac.collectors.local import guess_license
from aac.core.licenses import (DETECTABLE, PERMISSIVE, allowed_sql, detect_license, license_of_file, license_verdict,
                               parse_allowlist, resolved_spdx_sql, resolve_spdx)


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


BSD_GRANT = ("Copyright (c) 2024, Jane Roe\nAll rights reserved.\n\nRedistribution and use in source and binary forms,\n"
             "with or without modification, are permitted provided that the following conditions are met:\n")
ISC_GRANT = ("Permission to use, copy, modify, and/or distribute this software for any\n"
             "purpose with or without fee is hereby granted")


LICENSE_TEXTS = [
    (BSD_GRANT + "1. Keep the copyright notice.\n2. Reproduce it in the documentation.\n", "BSD-2-Clause", True),
    (BSD_GRANT + "3. Neither the name of the copyright holder nor the names of its contributors may be used\n"
     "to endorse products derived from this software.\n", "BSD-3-Clause", True),
    ("ISC License\n\n" + ISC_GRANT + ", provided that the above copyright notice and this\n"
     "permission notice appear in all copies.\n", "ISC", True),
    ("Zero-Clause BSD\n\n" + ISC_GRANT + ".\n\nTHE SOFTWARE IS PROVIDED \"AS IS\".\n", "0BSD", True),
    ("This software is provided 'as-is', without any express or implied warranty.\n"
     "2. Altered source versions must be plainly marked as such.\n", "Zlib", True),
    ("This software is provided \u2019as-is\u2019, without any express or implied\nwarranty. ALTERED SOURCE VERSIONS "
     "MUST BE PLAINLY MARKED as such.", "Zlib", True),
    ("Creative Commons Legal Code\n\nCC0 1.0 Universal\n", "CC0-1.0", True),
    ("This is free and unencumbered software released into the\npublic domain.\n", "Unlicense", True),
    ("Boost Software License - Version 1.0\n", "BSL-1.0", True),
    ("Mozilla Public License Version 2.0\n==================================\n", "MPL-2.0", False),
    ("GNU LESSER GENERAL PUBLIC LICENSE\n   Version 3, 29 June 2007\n", "LGPL-3.0", False),
    ("GNU LESSER GENERAL PUBLIC LICENSE\n   Version 2.1, February 1999\n", "LGPL-2.1", False),
    ("GNU GENERAL PUBLIC LICENSE\n   Version 2, June 1991\n", "GPL-2.0", False),
    ("Creative Commons Attribution 4.0 International Public License\n", "CC-BY-4.0", True),
    ("Creative Commons Attribution-NonCommercial 4.0 International Public License\n", "CC-BY-NC-4.0", False),
    ("Zero-Clause BSD\n\n" + ISC_GRANT.upper() + ".", "0BSD", True),
]


@pytest.mark.parametrize("text, spdx, publishable", LICENSE_TEXTS, ids=[case[1] for case in LICENSE_TEXTS])
def test_more_license_texts_are_recognised_by_their_marker_phrases(text, spdx, publishable):
    assert detect_license(text) == spdx
    assert license_verdict(detect_license(text)).keep is publishable
    assert resolve_spdx(None, "NOASSERTION", text) == spdx


@pytest.mark.parametrize("text, spdx", [
    ("GNU GENERAL PUBLIC LICENSE\nVersion 3, 29 June 2007\n...\n13. Use with the GNU Affero General Public License.\n",
     "GPL-3.0"),
    ("Mozilla Public License Version 2.0\n...\nA secondary licence here is the GNU General Public License, the GNU "
     "Lesser General Public License or the GNU Affero General Public License.\n", "MPL-2.0"),
    ("GNU LIBRARY GENERAL PUBLIC LICENSE\nVersion 2, June 1991\n...\nunlike the GNU General Public License...\n",
     "LGPL-2.0"),
    ("Permission to use, copy, modify, and distribute this software for any purpose with or without fee is "
     "hereby granted, provided that the above copyright notice and this permission notice appear in all copies.",
     "ISC"),
    ("This software is provided \u2018as-is\u2019, without any express or implied warranty.\n...\n2. Altered "
     "source versions must be plainly marked as such.", "Zlib"),
], ids=["GPL-3.0-naming-AGPL", "MPL-2.0-naming-secondary-licences", "LGPL-2.0-naming-GPL", "ISC-openbsd-wording",
        "Zlib-curly-quotes"])
def test_a_licence_naming_others_and_variant_wordings_are_recognised(text, spdx):
    assert detect_license(text) == spdx


# ---- the one detector on real licence texts (read where the machine holds them, never copied here) --------------

COMMON_LICENSES = Path("/usr/share/common-licenses")  # Debian's canonical texts
COMMON_IDS = {"Apache-2.0": "Apache-2.0", "BSD": "BSD-3-Clause", "CC0-1.0": "CC0-1.0", "GPL-2": "GPL-2.0",
              "GPL-3": "GPL-3.0", "LGPL-2": "LGPL-2.0", "LGPL-2.1": "LGPL-2.1", "LGPL-3": "LGPL-3.0",
              "MPL-2.0": "MPL-2.0"}


@pytest.mark.parametrize("name, spdx", sorted(COMMON_IDS.items()))
def test_canonical_licence_texts_are_told_apart(name, spdx):
    path = COMMON_LICENSES / name
    if not path.exists():
        pytest.skip(f"no canonical licence texts at {COMMON_LICENSES}")
    text = path.read_text(encoding="utf-8", errors="replace")
    assert detect_license(text) == spdx
    # the local collector reads a checkout's LICENSE with the same detector (it once said LGPL-3.0 for LGPL-2.1)
    assert guess_license(text) == spdx


def test_cpython_licence_stack_is_python_2_0_not_the_gpl_its_history_names():
    path = next((p for p in (Path(sys.base_prefix) / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}",
                             Path(sys.base_prefix)) if (p / "LICENSE.txt").exists()), None)
    if path is None:
        pytest.skip("this Python ships no LICENSE.txt")
    assert detect_license((path / "LICENSE.txt").read_text(encoding="utf-8", errors="replace")) == "Python-2.0"


# Distributions whose declared id differs from what their licence file says, and why.
_DECLARED_OTHERWISE = {
    "cffi": "MIT-0",  # declares MIT; its file is "MIT No Attribution"
    "typing_extensions": "Python-2.0",  # declares PSF-2.0 for the whole CPython licence stack
}


def _installed_licence_files():
    """(name, declared SPDX id, licence text) of the installed distributions that declare one id the detector knows
    and ship one licence file."""
    out = []
    for dist in importlib.metadata.distributions():
        declared = dist.metadata.get("License-Expression") or ""
        files = [f for f in dist.files or () if ".dist-info/" in str(f) and f.name.upper().startswith("LICEN")]
        if declared in DETECTABLE and len(files) == 1:
            out.append((dist.metadata["Name"], declared, files[0].locate().read_text(encoding="utf-8", errors="replace")))
    return out


def test_installed_distributions_licence_files_match_their_declared_ids():
    checked = _installed_licence_files()
    if len(checked) < 10:
        pytest.skip("too few installed distributions declare a licence expression")
    wrong = {name: (declared, detect_license(text)) for name, declared, text in checked
             if detect_license(text) != _DECLARED_OTHERWISE.get(name, declared)}
    assert not wrong
    assert {"MIT", "Apache-2.0", "BSD-3-Clause"} <= {declared for _, declared, _ in checked}


# Characteristic phrases of the allowlisted licences the machine holds no text of (facts about each licence, not
# copies of it): each id in PERMISSIVE is recognised, kept, and kept by the SQL rendering too.
PHRASES = {
    "MIT": "Permission is hereby granted, free of charge, to any person obtaining a copy of this software ... The above "
           "copyright notice and this permission notice shall be included in all copies",
    "MIT-0": "MIT No Attribution\n\nPermission is hereby granted, free of charge, to any person obtaining a copy of "
             "this software ... to permit persons to whom the Software is furnished to do so.",
    "Apache-2.0": "Apache License\nVersion 2.0, January 2004",
    "BSD-2-Clause": BSD_GRANT,
    "BSD-3-Clause": BSD_GRANT + "3. Neither the name of the copyright holder",
    "ISC": "ISC License\n\n" + ISC_GRANT + ", provided that the above copyright notice",
    "0BSD": ISC_GRANT + ".",
    "Unlicense": "This is free and unencumbered software released into the public domain.",
    "CC0-1.0": "CC0 1.0 Universal",
    "Zlib": "This software is provided 'as-is', without any express or implied warranty. ... Altered source versions "
            "must be plainly marked as such",
    "BSL-1.0": "Boost Software License - Version 1.0 - August 17th, 2003",
    "CC-BY-4.0": "Creative Commons Attribution 4.0 International Public License",
    "WTFPL": "DO WHAT THE FUCK YOU WANT TO PUBLIC LICENSE\nVersion 2, December 2004",
    "PSF-2.0": "PYTHON SOFTWARE FOUNDATION LICENSE VERSION 2\n1. This LICENSE AGREEMENT is between the PSF",
    "Python-2.0": "A. HISTORY OF THE SOFTWARE\nPython was created in the early 1990s by Guido van Rossum ... the GPL "
                  "...\nPYTHON SOFTWARE FOUNDATION LICENSE VERSION 2",
    "UPL-1.0": "The Universal Permissive License (UPL), Version 1.0",
    "BlueOak-1.0.0": "# Blue Oak Model License\n\nVersion 1.0.0",
}


@pytest.mark.parametrize("spdx", sorted(PERMISSIVE))
def test_every_allowlisted_id_is_detected_kept_and_kept_in_sql(spdx):
    assert detect_license(PHRASES[spdx]) == spdx
    assert detect_license(f"SPDX-License-Identifier: {spdx}\n\nCopyright 2024 X") == spdx
    assert license_verdict(spdx).keep and license_verdict(spdx.lower()).keep
    con = duckdb.connect()
    try:
        sql = f"SELECT {allowed_sql(resolved_spdx_sql('a', 'r'))} FROM (SELECT ?::VARCHAR AS a, ?::VARCHAR AS r)"
        for art, repo in ((spdx, None), (None, spdx.lower()), ("NOASSERTION", spdx), (" ", spdx)):
            assert con.execute(sql, [art, repo]).fetchall()[0][0] is True, (art, repo)
            assert license_verdict(resolve_spdx(art, repo)).keep
    finally:
        con.close()


@pytest.mark.parametrize("art, repo", [(None, None), ("NOASSERTION", None), ("GPL-3.0", "MIT"), (None, "AGPL-3.0"),
                                       ("", "LicenseRef-Proprietary"), ("other", None)])
def test_sql_rendering_refuses_what_the_verdict_refuses(art, repo):
    con = duckdb.connect()
    try:
        sql = f"SELECT {allowed_sql(resolved_spdx_sql('a', 'r'))} FROM (SELECT ?::VARCHAR AS a, ?::VARCHAR AS r)"
        assert con.execute(sql, [art, repo]).fetchall()[0][0] is False
        assert not license_verdict(resolve_spdx(art, repo)).keep
    finally:
        con.close()


def test_spdx_line_counts_only_at_the_head_of_the_file():
    assert detect_license("SPDX-License-Identifier: Apache-2.0") == "Apache-2.0"
    mit = PHRASES["MIT"] + "\n" * 20 + "x" * 400 + "\nBundled font:\nSPDX-License-Identifier: OFL-1.1\n"
    assert detect_license(mit) == "MIT"
    assert license_of_file("All rights reserved.") == "NOASSERTION"
