# edits after step 4 (alternatives) and steering: applied to pos.raw.txt -> pos.txt
grep -v -e 'weird rash' -e '^paraphrase | ui-design-system |' -e '^paraphrase | meeting-insights-analyzer |' -e '^paraphrase | autoresearch |' pos.raw.txt \
| sed -e 's/^paraphrase | autoresearch-agent |/paraphrase | autoresearch-agent,autoresearch |/' \
      -e 's/^paraphrase | statistical-analysis |/paraphrase | statistical-analysis,statistical-analyst |/' \
      -e 's/^paraphrase | ci-cd-pipeline-builder |/paraphrase | ci-cd-pipeline-builder,github-actions-templates |/' \
      -e 's/^paraphrase | board-deck-builder |/paraphrase | board-deck-builder,gtm-board-and-investor-communication |/' \
> pos.txt
# two rewordings after alternatives were added (the added skill pushed the ratio over 0.25)
sed -i -e "s/which test should I run when my two groups aren't normally distributed and the sizes are unequal? and how do I report it/which comparison is right when my two groups aren't normally distributed and differ in headcount? and how do I write it up/" \
       -e "s/every merge we still deploy by hand over ssh; set up something that tests and ships automatically for our node repo/every merge we still push to the server by hand over ssh; I want checks and releases to happen on their own for our node repo/" pos.txt
# alternatives judged equally good from check.mjs -a (pos.out)
sed -i -e 's/^paraphrase | iso-13485-certification |/paraphrase | iso-13485-certification,quality-manager-qms-iso13485 |/' \
       -e 's/^paraphrase | finance-skills |/paraphrase | finance-skills,financial-analyst |/' \
       -e 's/^paraphrase | connect |/paraphrase | connect,connect-apps |/' \
       -e 's/^paraphrase | self-improving-agent |/paraphrase | self-improving-agent,promote |/' \
       -e 's/^paraphrase | research-lookup |/paraphrase | research-lookup,paper-lookup,perplexity-search |/' pos.txt
sed -i -e "s/find me the most recent studies on semaglutide and muscle loss, with citations/what have researchers published lately on semaglutide and muscle wasting? I want the sources listed/" \
       -e "s/value this company from its cash flows and tell me if the share price makes sense, plus key ratios/is this listed firm worth what the market says? do a discounted valuation and the usual margin and leverage figures/" pos.txt
# three typos added by hand, as users type
sed -i -e 's/keep whichever is fastest/keep wichever is fastest/' -e "s/which of my teammates' pull requests/wich of my teammates' pull requests/" -e 's/watch on the plane tomorrow/watch on the plane tommorow/' pos.txt
