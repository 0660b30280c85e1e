"""Console pages of vocabularies (/vocabularies/): the list with a form to create one (labels typed one per line, or
a concepts.tsv file) and a page per vocabulary with its labels. Thin: the selectors read, the service creates."""
from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from mturk.views.access import researcher_required

from ..models import Vocabulary
from ..services.concepts import ConceptImportError
from .selectors import DEMO_VOCABULARY, vocabulary_labels, vocabulary_rows
from .services import DESCRIPTION_LENGTH, create_vocabulary

TSV_MAX_BYTES = 2 * 1024 * 1024


class VocabularyForm(forms.Form):
    name = forms.CharField(max_length=100, help_text="e.g. “Kitchen objects”. Names are unique.")
    description = forms.CharField(max_length=DESCRIPTION_LENGTH, required=False,
                                  help_text="Optional: what the labels are for.")
    labels = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 8, "spellcheck": "false"}),
        label="Labels, one per line",
        help_text="name | synonyms | WordNet synset | parent; all but the name optional, synonyms separated by "
                  "commas, e.g. “kitten | kitty, cat | kitten.n.01”.")
    file = forms.FileField(required=False, label="Or a concepts.tsv file",
                           help_text="Tab-separated: name, synset, synonyms (separated by ;), parent, with that "
                                     "header line.")


def _tsv(form: VocabularyForm) -> str | None:
    upload = form.cleaned_data.get("file")
    if upload is None:
        return ""
    if upload.size > TSV_MAX_BYTES:
        form.add_error("file", f"The file is larger than {TSV_MAX_BYTES // 1024 // 1024} MB.")
        return None
    try:
        return upload.read().decode("utf-8-sig")
    except UnicodeDecodeError:
        form.add_error("file", "The file is not UTF-8 text.")
        return None


@require_http_methods(["GET", "POST"])
@researcher_required
def vocabularies(request: HttpRequest) -> HttpResponse:
    form = VocabularyForm(request.POST or None, request.FILES or None, label_suffix="")
    if request.method == "POST" and form.is_valid():
        tsv = _tsv(form)
        if tsv is not None:
            upload = form.cleaned_data.get("file")
            try:
                result = create_vocabulary(form.cleaned_data["name"], labels=form.cleaned_data["labels"], tsv=tsv,
                                           description=form.cleaned_data["description"],
                                           source=upload.name if upload and tsv else "labels")
            except ConceptImportError as exc:
                for error in exc.errors:
                    form.add_error(None, error)
            else:
                messages.success(request, f"Vocabulary “{result.vocabulary.name}” created with {result.created} "
                                          f"label{'s' if result.created != 1 else ''}.")
                return redirect("vocabulary-page", pk=result.vocabulary.pk)
    status = 400 if request.method == "POST" else 200
    return render(request, "annotation/vocabularies/index.html",
                  {"rows": vocabulary_rows(), "form": form, "demo": DEMO_VOCABULARY}, status=status)


@require_GET
@researcher_required
def vocabulary(request: HttpRequest, pk: int) -> HttpResponse:
    vocab = get_object_or_404(Vocabulary, pk=pk)
    labels = vocabulary_labels(vocab)
    return render(request, "annotation/vocabularies/vocabulary.html", {
        "vocabulary": vocab, "offered": [c for c in labels if c.offered], "kept": [c for c in labels if not c.offered],
    })
