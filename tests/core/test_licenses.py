import pytest

from aac.core.licenses import PERMISSIVE, detect_license, license_verdict, parse_allowlist, resolve_spdx


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
