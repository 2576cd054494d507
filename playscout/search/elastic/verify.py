"""`index verify` for Elasticsearch: ES checksums its own segments (and can check them on
startup, `index.shard.check_on_startup`), so what playscout checks is what only it knows: that
every alias points at the index this build made and holds as many documents, passages and
clips per sport as the manifest records."""

from __future__ import annotations

import time

from elasticsearch import Elasticsearch, NotFoundError

from playscout.search.core.verify import BadPart, VerifyProgress, VerifyReport
from playscout.search.elastic.manifest import read_manifest
from playscout.search.elastic.names import Names, check_prefix

# alias kind -> the manifest's count of what it holds
COUNTED = {"docs": "documents", "passages": "passages", "clips": "clips"}


def verify_elasticsearch(
    es: Elasticsearch, url: str, prefix: str, progress: VerifyProgress | None = None
) -> VerifyReport:
    started = time.perf_counter()
    names = Names(check_prefix(prefix))
    manifest = read_manifest(es, names, url)
    report = VerifyReport(f"{url} (prefix {prefix!r})")
    recorded = manifest.get("indices", {})
    sports = manifest["sports"]
    for done, (sport, info) in enumerate(sports.items(), start=1):
        for kind, key in COUNTED.items():
            alias = names.alias(sport, kind)
            report.checked += 1
            try:
                current = sorted(es.indices.get_alias(name=alias))
                count = int(es.count(index=alias)["count"])
            except NotFoundError:
                report.bad.append(BadPart(alias, "alias is missing"))
                continue
            if alias in recorded and current != [recorded[alias]]:
                report.bad.append(
                    BadPart(alias, f"points at {current}, the build made {recorded[alias]}")
                )
            if count != info.get(key):
                report.bad.append(
                    BadPart(alias, f"holds {count} {key}, the build wrote {info.get(key)}")
                )
        if progress is not None:
            progress("verify sports", done, len(sports))
    report.seconds = time.perf_counter() - started
    return report
