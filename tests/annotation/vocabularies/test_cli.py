"""The CLI: import_concepts --vocabulary writes only that vocabulary; create_campaign with a vocabulary that does
not exist is told which exist."""
from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from annotation.models import Concept
from annotation.vocabularies.services import create_vocabulary
from mturk.models import Campaign
from tests.factories import make_image

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=out)
    return out.getvalue()


def test_import_concepts_into_a_named_vocabulary_leaves_the_demo_alone(tmp_path):
    create_vocabulary("demo", labels="person | human | person.n.01\ndog")
    demo = list(Concept.objects.filter(vocabulary__name="demo").values_list("pk", "name", "synonyms", "synset"))
    path = tmp_path / "labels.tsv"
    path.write_text("name\tsynset\tsynonyms\tparent\nperson\tperson.n.01\tkid\t\nkitten\t\t\t\n", encoding="utf-8")
    assert run("import_concepts", str(path), "--vocabulary", "Pets").strip() == \
        "Vocabulary 'Pets': 2 concepts (2 new, 0 updated)"
    assert list(Concept.objects.filter(vocabulary__name="demo").values_list("pk", "name", "synonyms", "synset")) \
        == demo


def test_create_campaign_with_an_unknown_vocabulary_names_the_vocabularies():
    create_vocabulary("Pets", labels="cat")
    make_image()
    with pytest.raises(CommandError) as caught:
        run("create_campaign", "--name", "x", "--kind", "draw_boxes", "--all-images",
            "--options", '{"vocabulary": "Birds"}')
    assert "unknown vocabulary 'Birds' (vocabularies: Pets)" in str(caught.value)
    assert not Campaign.objects.exists()
    run("create_campaign", "--name", "x", "--kind", "draw_boxes", "--all-images", "--options", '{"vocabulary": "Pets"}')
    assert Campaign.objects.get().options["vocabulary"] == "Pets"
