"""For an answer to "which paper ...?" (or one whose draft overlooked the paper the question
describes), each cited paper the question does not name is judged: a small model restates the
question as a near paper's contribution ("EvA proposes a certified defense ..."), which no
wording check can catch. The model, shown the paper's passage and the question alone, says
whether it answers; with no model to ask, the paper must meet the question's last condition
("... on 3D point clouds"), which usually sets its subject apart from its neighbours'."""

from rag.answer.checks import Check, Review
from rag.answer.listing import meets
from rag.answer.prompts import judge_messages, says_no
from rag.answer.verdict import Reason


class Judge(Check):
    name = "judge"

    def run(self, review: Review) -> list:
        if review.many_listed:
            return []
        judged = [n for n in review.cited() if not review.sources[n - 1].named]
        if not judged or not (review.overlooked or review.intent.asks_for_papers):
            return []
        if not review.draft.can_judge:
            return self._by_condition(judged, review)
        return self._by_model(judged, review)

    def _by_condition(self, judged: list[int], review: Review) -> list:
        last = review.intent.conditions[-1:]
        sources = [review.sources[n - 1] for n in judged]
        verdicts = meets(sources, last, review.tools.embedder, review.tools.tuning)
        return [
            self.verdict(
                "reject",
                Reason.MISSING_CONDITION,
                papers=[n],
                detail=last[0],
                titles=review.titles({n}),
            )
            for n, ok in zip(judged, verdicts)
            if not ok
        ]

    def _by_model(self, judged: list[int], review: Review) -> list:
        from rag.llm import Prompt

        try:
            model = review.tools.judge().side_tasks()  # the answer prompt stays cached
            return [
                self.verdict("reject", Reason.JUDGE, papers=[n], titles=review.titles({n}))
                for n in judged
                if says_no(
                    model.complete(
                        Prompt(
                            messages=judge_messages(review.intent.text, review.sources[n - 1]),
                            max_tokens=2,
                        )
                    )
                )
            ]
        except Exception as error:  # noqa: BLE001 - the answer is shown, saying so
            return [self.verdict("note", Reason.JUDGE_FAILED, detail=str(error))]
