/**
 * English words Snowball cannot stem to their base, because they change inside: past tenses and participles of
 * irregular verbs ("gave", "given" → give; "threw" → throw) and irregular plurals ("children" → child). A novel's
 * "The bride gave me a sovereign" answers "What did the bride give?", "she threw the key" answers "Where does she
 * throw the key?". Forms that are more often other words are not listed ("left", "saw", "felt", "rose", "bit",
 * "shot", "lay", "ground", "bound", "wound", "born").
 */
const FORMS = `give:gave,given take:took,taken go:went,gone come:came become:became begin:began,begun run:ran win:won
write:wrote,written drive:drove,driven ride:rode,ridden choose:chose,chosen freeze:froze,frozen break:broke,broken
speak:spoke,spoken steal:stole,stolen wake:woke,woken eat:ate,eaten fall:fell,fallen forget:forgot,forgotten
get:got,gotten hide:hid,hidden know:knew,known grow:grew,grown throw:threw,thrown fly:flew,flown draw:drew,drawn
blow:blew,blown wear:wore,worn tear:tore,torn swear:swore,sworn sing:sang,sung sink:sank,sunk drink:drank,drunk
swim:swam,swum ring:rang,rung make:made hear:heard sit:sat strike:struck stick:stuck hang:hung dig:dug feed:fed
flee:fled bleed:bled breed:bred lead:led speed:sped lend:lent bend:bent build:built burn:burnt dream:dreamt
learn:learnt mean:meant weep:wept sweep:swept creep:crept kneel:knelt spit:spat shake:shook,shaken
forgive:forgave,forgiven forbid:forbade,forbidden mistake:mistook,mistaken undertake:undertook,undertaken
overtake:overtook,overtaken withdraw:withdrew,withdrawn arise:arose,arisen awake:awoke,awoken beat:beaten
bite:bitten slide:slid stride:strode strive:strove,striven weave:wove,woven wring:wrung cling:clung fling:flung
spin:spun sting:stung swing:swung find:found fight:fought seek:sought think:thought bring:brought buy:bought
catch:caught teach:taught hold:held keep:kept sleep:slept meet:met pay:paid say:said tell:told sell:sold
stand:stood understand:understood send:sent spend:spent lose:lost deal:dealt see:seen shine:shone tread:trod,trodden
man:men woman:women child:children foot:feet tooth:teeth mouse:mice goose:geese ox:oxen`;

export const ENGLISH_IRREGULAR: ReadonlyMap<string, string> = new Map(
  FORMS.split(/\s+/)
    .filter(Boolean)
    .flatMap((entry) => {
      const [base = "", forms = ""] = entry.split(":");
      return forms.split(",").map((f) => [f, base] as const);
    }),
);
