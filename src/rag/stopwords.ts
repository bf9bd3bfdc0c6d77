/**
 * Words dropped from keyword queries and from the grounding gate's term coverage: English function words
 * (NLTK's list) plus question fillers ("tell me", "please") that say nothing about the documents.
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  `a about above after again against all am an and any are aren as at be because been before being below between
both but by can couldn could d did didn do does doesn doing don down during each few for from further had hadn has
hasn have haven having he her here hers herself him himself his how i if in into is isn it its itself just ll m ma
me mightn more most mustn my myself needn no nor not now o of off on once only or other our ours ourselves out over
own re s same shan she should shouldn so some such t than that the their theirs them themselves then there these
they this those through to too under until up ve very was wasn we were weren what when where which while who whom
why will with won wouldn y you your yours yourself yourselves also may might must shall would whose
please tell explain describe know let us anything something thing things else`.split(/\s+/),
);
