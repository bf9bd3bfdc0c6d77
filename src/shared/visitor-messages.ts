/**
 * The fixed texts a visitor reads — the refusal, "not available", the handoff form and the widget's own words —
 * in the languages docchat speaks to visitors. Pure data, shared by the server (chat/, server/) and the widget
 * bundle (web/widget/). A deployment owner's own text (a custom refusal) always wins over these.
 */
export const MESSAGE_LANGS = ["en", "de", "fr", "es", "it", "pt", "nl"] as const;
export type MessageLang = (typeof MESSAGE_LANGS)[number];

export interface VisitorMessages {
  refusal: string;
  /** unpublished deployment, disabled account */
  notAvailable: string;
  /** out of credit, model down: the message never says which */
  temporarilyUnavailable: string;
  busy: string;
  rateLimited: string;
  notTrained: string;
  ipRestricted: string;
  somethingWentWrong: string;
  handoffDisabled: string;
  handoffNotOffered: string;
  /** the lead-in of an extractive answer that is only the closest passage found */
  closestPassage: string;
  /** said when there is nothing to quote and no language model */
  noModel: string;
  handoff: {
    title: string;
    /** the title when the owner gets no mail (the request waits in the console) */
    titleRequest: string;
    email: string;
    name: string;
    nameLabel: string;
    message: string;
    messageLabel: string;
    /** not the composer's "Send": two identical buttons confuse, and read the same to a screen reader */
    sendMail: string;
    sendRequest: string;
    thanks: string;
    thanksRequest: string;
  };
  widget: {
    ask: string;
    question: string;
    send: string;
    helpful: string;
    notHelpful: string;
    wasHelpful: string;
    thanksFeedback: string;
    thanksReview: string;
    close: string;
    footer: string;
    /** {name} is the deployment's name */
    greeting: string;
    chatWith: string;
    sources: string;
    unreachable: string;
    interrupted: string;
  };
}

const en: VisitorMessages = {
  refusal:
    "I'm sorry, I couldn't find an answer to that in the documents I have. Could you rephrase the question, or ask about something else?",
  notAvailable: "This assistant is not available.",
  temporarilyUnavailable: "The assistant is temporarily unavailable. Please try again shortly.",
  busy: "The assistant is busy. Please try again shortly.",
  rateLimited: "Too many requests. Please slow down.",
  notTrained: "This assistant has no trained documents yet.",
  ipRestricted: "Requests from this address are not allowed for this assistant.",
  somethingWentWrong: "Something went wrong. Please try again.",
  handoffDisabled: "Contacting a person is not available for this assistant.",
  handoffNotOffered: "Contacting a person is offered only after a question the assistant could not answer.",
  closestPassage: "I'm not sure this answers it; the closest passage I found: ",
  noModel:
    "I am a document assistant and no language model is configured here, so I can only answer questions from the documents I have been given.",
  handoff: {
    title: "Would you like a person to email you?",
    titleRequest: "Would you like to leave your request for a person?",
    email: "Your email",
    name: "Your name (optional)",
    nameLabel: "Your name",
    message: "What would you like to ask? (optional)",
    messageLabel: "Message",
    sendMail: "Ask for an email",
    sendRequest: "Leave my request",
    thanks: "Thanks! A person will email you at {email}.",
    thanksRequest: "Thanks! Your request was passed on to the team.",
  },
  widget: {
    ask: "Ask a question…",
    question: "Your question",
    send: "Send",
    helpful: "Helpful",
    notHelpful: "Not helpful",
    wasHelpful: "Helpful?",
    thanksFeedback: "Thanks for the feedback!",
    thanksReview: "Thanks — the owner will review this answer.",
    close: "Close chat",
    footer: "Answers come from this site's documents.",
    greeting: "Hi! Ask me anything about {name}.",
    chatWith: "Chat with {name}",
    sources: "Sources:",
    unreachable: "Cannot reach the assistant. Check your connection.",
    interrupted: "The connection was interrupted. Please ask again.",
  },
};

const de: VisitorMessages = {
  refusal:
    "Entschuldigung, dazu habe ich in meinen Dokumenten keine Antwort gefunden. Können Sie die Frage anders formulieren oder nach etwas anderem fragen?",
  notAvailable: "Dieser Assistent ist nicht verfügbar.",
  temporarilyUnavailable: "Der Assistent ist vorübergehend nicht verfügbar. Bitte versuchen Sie es gleich noch einmal.",
  busy: "Der Assistent ist gerade ausgelastet. Bitte versuchen Sie es gleich noch einmal.",
  rateLimited: "Zu viele Anfragen. Bitte etwas langsamer.",
  notTrained: "Dieser Assistent hat noch keine trainierten Dokumente.",
  ipRestricted: "Anfragen von dieser Adresse sind für diesen Assistenten nicht erlaubt.",
  somethingWentWrong: "Etwas ist schiefgelaufen. Bitte versuchen Sie es noch einmal.",
  handoffDisabled: "Die Kontaktaufnahme mit einer Person ist für diesen Assistenten nicht verfügbar.",
  handoffNotOffered:
    "Eine Kontaktaufnahme mit einer Person wird nur nach einer Frage angeboten, die der Assistent nicht beantworten konnte.",
  closestPassage: "Ich bin nicht sicher, ob das die Frage beantwortet; die passendste Stelle, die ich gefunden habe: ",
  noModel:
    "Ich bin ein Dokumenten-Assistent, und hier ist kein Sprachmodell eingerichtet; ich kann nur Fragen zu den Dokumenten beantworten, die ich erhalten habe.",
  handoff: {
    title: "Möchten Sie, dass Ihnen eine Person per E-Mail antwortet?",
    titleRequest: "Möchten Sie Ihre Anfrage für eine Person hinterlassen?",
    email: "Ihre E-Mail-Adresse",
    name: "Ihr Name (optional)",
    nameLabel: "Ihr Name",
    message: "Was möchten Sie fragen? (optional)",
    messageLabel: "Nachricht",
    sendMail: "Um eine E-Mail bitten",
    sendRequest: "Anfrage hinterlassen",
    thanks: "Danke! Eine Person schreibt Ihnen an {email}.",
    thanksRequest: "Danke! Ihre Anfrage wurde an das Team weitergegeben.",
  },
  widget: {
    ask: "Stellen Sie eine Frage…",
    question: "Ihre Frage",
    send: "Senden",
    helpful: "Hilfreich",
    notHelpful: "Nicht hilfreich",
    wasHelpful: "Hilfreich?",
    thanksFeedback: "Danke für Ihre Rückmeldung!",
    thanksReview: "Danke – der Betreiber sieht sich diese Antwort an.",
    close: "Chat schließen",
    footer: "Die Antworten stammen aus den Dokumenten dieser Website.",
    greeting: "Hallo! Fragen Sie mich alles zu {name}.",
    chatWith: "Chat mit {name}",
    sources: "Quellen:",
    unreachable: "Der Assistent ist nicht erreichbar. Bitte prüfen Sie Ihre Verbindung.",
    interrupted: "Die Verbindung wurde unterbrochen. Bitte fragen Sie noch einmal.",
  },
};

const fr: VisitorMessages = {
  refusal:
    "Désolé, je n'ai pas trouvé de réponse à cette question dans mes documents. Pourriez-vous la reformuler ou poser une autre question ?",
  notAvailable: "Cet assistant n'est pas disponible.",
  temporarilyUnavailable: "L'assistant est momentanément indisponible. Veuillez réessayer dans un instant.",
  busy: "L'assistant est occupé. Veuillez réessayer dans un instant.",
  rateLimited: "Trop de requêtes. Veuillez ralentir.",
  notTrained: "Cet assistant n'a encore aucun document entraîné.",
  ipRestricted: "Les requêtes depuis cette adresse ne sont pas autorisées pour cet assistant.",
  somethingWentWrong: "Une erreur s'est produite. Veuillez réessayer.",
  handoffDisabled: "Le contact avec une personne n'est pas disponible pour cet assistant.",
  handoffNotOffered: "Le contact avec une personne n'est proposé qu'après une question à laquelle l'assistant n'a pas pu répondre.",
  closestPassage: "Je ne suis pas sûr que cela réponde à la question ; le passage le plus proche que j'ai trouvé : ",
  noModel:
    "Je suis un assistant documentaire et aucun modèle de langage n'est configuré ici : je ne peux répondre qu'à partir des documents qui m'ont été fournis.",
  handoff: {
    title: "Souhaitez-vous qu'une personne vous réponde par e-mail ?",
    titleRequest: "Souhaitez-vous laisser votre demande à une personne ?",
    email: "Votre e-mail",
    name: "Votre nom (facultatif)",
    nameLabel: "Votre nom",
    message: "Que souhaitez-vous demander ? (facultatif)",
    messageLabel: "Message",
    sendMail: "Demander un e-mail",
    sendRequest: "Laisser ma demande",
    thanks: "Merci ! Une personne vous écrira à {email}.",
    thanksRequest: "Merci ! Votre demande a été transmise à l'équipe.",
  },
  widget: {
    ask: "Posez une question…",
    question: "Votre question",
    send: "Envoyer",
    helpful: "Utile",
    notHelpful: "Pas utile",
    wasHelpful: "Utile ?",
    thanksFeedback: "Merci pour votre avis !",
    thanksReview: "Merci — le responsable examinera cette réponse.",
    close: "Fermer le chat",
    footer: "Les réponses proviennent des documents de ce site.",
    greeting: "Bonjour ! Posez-moi vos questions sur {name}.",
    chatWith: "Discuter avec {name}",
    sources: "Sources :",
    unreachable: "Impossible de joindre l'assistant. Vérifiez votre connexion.",
    interrupted: "La connexion a été interrompue. Veuillez reposer la question.",
  },
};

const es: VisitorMessages = {
  refusal: "Lo siento, no he encontrado una respuesta a eso en mis documentos. ¿Podría reformular la pregunta o preguntar por otra cosa?",
  notAvailable: "Este asistente no está disponible.",
  temporarilyUnavailable: "El asistente no está disponible en este momento. Inténtelo de nuevo en breve.",
  busy: "El asistente está ocupado. Inténtelo de nuevo en breve.",
  rateLimited: "Demasiadas solicitudes. Vaya más despacio, por favor.",
  notTrained: "Este asistente todavía no tiene documentos entrenados.",
  ipRestricted: "Las solicitudes desde esta dirección no están permitidas para este asistente.",
  somethingWentWrong: "Algo ha salido mal. Inténtelo de nuevo.",
  handoffDisabled: "El contacto con una persona no está disponible para este asistente.",
  handoffNotOffered: "El contacto con una persona solo se ofrece después de una pregunta que el asistente no pudo responder.",
  closestPassage: "No estoy seguro de que esto responda a la pregunta; el pasaje más cercano que he encontrado: ",
  noModel:
    "Soy un asistente de documentos y aquí no hay ningún modelo de lenguaje configurado; solo puedo responder a partir de los documentos que me han dado.",
  handoff: {
    title: "¿Quiere que una persona le responda por correo electrónico?",
    titleRequest: "¿Quiere dejar su solicitud para una persona?",
    email: "Su correo electrónico",
    name: "Su nombre (opcional)",
    nameLabel: "Su nombre",
    message: "¿Qué le gustaría preguntar? (opcional)",
    messageLabel: "Mensaje",
    sendMail: "Pedir un correo",
    sendRequest: "Dejar mi solicitud",
    thanks: "¡Gracias! Una persona le escribirá a {email}.",
    thanksRequest: "¡Gracias! Su solicitud se ha enviado al equipo.",
  },
  widget: {
    ask: "Haga una pregunta…",
    question: "Su pregunta",
    send: "Enviar",
    helpful: "Útil",
    notHelpful: "No es útil",
    wasHelpful: "¿Le ha sido útil?",
    thanksFeedback: "¡Gracias por su opinión!",
    thanksReview: "Gracias: el responsable revisará esta respuesta.",
    close: "Cerrar el chat",
    footer: "Las respuestas provienen de los documentos de este sitio.",
    greeting: "¡Hola! Pregúnteme lo que quiera sobre {name}.",
    chatWith: "Chatear con {name}",
    sources: "Fuentes:",
    unreachable: "No se puede contactar con el asistente. Compruebe su conexión.",
    interrupted: "La conexión se ha interrumpido. Vuelva a preguntar.",
  },
};

const it: VisitorMessages = {
  refusal:
    "Mi dispiace, non ho trovato una risposta a questa domanda nei miei documenti. Può riformulare la domanda o chiedere qualcos'altro?",
  notAvailable: "Questo assistente non è disponibile.",
  temporarilyUnavailable: "L'assistente non è momentaneamente disponibile. Riprovi tra poco.",
  busy: "L'assistente è occupato. Riprovi tra poco.",
  rateLimited: "Troppe richieste. Rallenti, per favore.",
  notTrained: "Questo assistente non ha ancora documenti addestrati.",
  ipRestricted: "Le richieste da questo indirizzo non sono consentite per questo assistente.",
  somethingWentWrong: "Qualcosa è andato storto. Riprovi.",
  handoffDisabled: "Il contatto con una persona non è disponibile per questo assistente.",
  handoffNotOffered: "Il contatto con una persona è offerto solo dopo una domanda a cui l'assistente non ha saputo rispondere.",
  closestPassage: "Non sono sicuro che questo risponda alla domanda; il passaggio più vicino che ho trovato: ",
  noModel:
    "Sono un assistente per documenti e qui non è configurato alcun modello linguistico: posso rispondere solo a partire dai documenti che mi sono stati forniti.",
  handoff: {
    title: "Desidera che una persona le risponda via e-mail?",
    titleRequest: "Desidera lasciare la sua richiesta a una persona?",
    email: "La sua e-mail",
    name: "Il suo nome (facoltativo)",
    nameLabel: "Il suo nome",
    message: "Che cosa vorrebbe chiedere? (facoltativo)",
    messageLabel: "Messaggio",
    sendMail: "Chiedi un'e-mail",
    sendRequest: "Lascia la mia richiesta",
    thanks: "Grazie! Una persona le scriverà a {email}.",
    thanksRequest: "Grazie! La sua richiesta è stata inoltrata al team.",
  },
  widget: {
    ask: "Faccia una domanda…",
    question: "La sua domanda",
    send: "Invia",
    helpful: "Utile",
    notHelpful: "Non utile",
    wasHelpful: "Utile?",
    thanksFeedback: "Grazie per il riscontro!",
    thanksReview: "Grazie: il responsabile esaminerà questa risposta.",
    close: "Chiudi la chat",
    footer: "Le risposte provengono dai documenti di questo sito.",
    greeting: "Ciao! Mi chieda qualsiasi cosa su {name}.",
    chatWith: "Chatta con {name}",
    sources: "Fonti:",
    unreachable: "Impossibile raggiungere l'assistente. Controlli la connessione.",
    interrupted: "La connessione si è interrotta. Ripeta la domanda.",
  },
};

const pt: VisitorMessages = {
  refusal: "Desculpe, não encontrei resposta para isso nos meus documentos. Pode reformular a pergunta ou perguntar outra coisa?",
  notAvailable: "Este assistente não está disponível.",
  temporarilyUnavailable: "O assistente está temporariamente indisponível. Tente novamente em breve.",
  busy: "O assistente está ocupado. Tente novamente em breve.",
  rateLimited: "Demasiados pedidos. Abrande, por favor.",
  notTrained: "Este assistente ainda não tem documentos treinados.",
  ipRestricted: "Os pedidos a partir deste endereço não são permitidos para este assistente.",
  somethingWentWrong: "Algo correu mal. Tente novamente.",
  handoffDisabled: "O contacto com uma pessoa não está disponível para este assistente.",
  handoffNotOffered: "O contacto com uma pessoa só é oferecido depois de uma pergunta que o assistente não conseguiu responder.",
  closestPassage: "Não tenho a certeza de que isto responda à pergunta; a passagem mais próxima que encontrei: ",
  noModel:
    "Sou um assistente de documentos e aqui não está configurado nenhum modelo de linguagem: só posso responder a partir dos documentos que me foram dados.",
  handoff: {
    title: "Quer que uma pessoa lhe responda por e-mail?",
    titleRequest: "Quer deixar o seu pedido para uma pessoa?",
    email: "O seu e-mail",
    name: "O seu nome (opcional)",
    nameLabel: "O seu nome",
    message: "O que gostaria de perguntar? (opcional)",
    messageLabel: "Mensagem",
    sendMail: "Pedir um e-mail",
    sendRequest: "Deixar o meu pedido",
    thanks: "Obrigado! Uma pessoa irá escrever-lhe para {email}.",
    thanksRequest: "Obrigado! O seu pedido foi encaminhado para a equipa.",
  },
  widget: {
    ask: "Faça uma pergunta…",
    question: "A sua pergunta",
    send: "Enviar",
    helpful: "Útil",
    notHelpful: "Não é útil",
    wasHelpful: "Foi útil?",
    thanksFeedback: "Obrigado pela sua opinião!",
    thanksReview: "Obrigado — o responsável vai rever esta resposta.",
    close: "Fechar o chat",
    footer: "As respostas vêm dos documentos deste site.",
    greeting: "Olá! Pergunte-me o que quiser sobre {name}.",
    chatWith: "Conversar com {name}",
    sources: "Fontes:",
    unreachable: "Não é possível contactar o assistente. Verifique a sua ligação.",
    interrupted: "A ligação foi interrompida. Volte a perguntar.",
  },
};

const nl: VisitorMessages = {
  refusal: "Sorry, ik heb daar in mijn documenten geen antwoord op gevonden. Kunt u de vraag anders formuleren of iets anders vragen?",
  notAvailable: "Deze assistent is niet beschikbaar.",
  temporarilyUnavailable: "De assistent is tijdelijk niet beschikbaar. Probeer het zo opnieuw.",
  busy: "De assistent is bezet. Probeer het zo opnieuw.",
  rateLimited: "Te veel verzoeken. Doe het wat rustiger aan.",
  notTrained: "Deze assistent heeft nog geen getrainde documenten.",
  ipRestricted: "Verzoeken vanaf dit adres zijn niet toegestaan voor deze assistent.",
  somethingWentWrong: "Er ging iets mis. Probeer het opnieuw.",
  handoffDisabled: "Contact met een persoon is niet beschikbaar voor deze assistent.",
  handoffNotOffered: "Contact met een persoon wordt alleen aangeboden na een vraag die de assistent niet kon beantwoorden.",
  closestPassage: "Ik weet niet zeker of dit de vraag beantwoordt; de passage die er het dichtst bij komt: ",
  noModel:
    "Ik ben een documentassistent en hier is geen taalmodel ingesteld; ik kan alleen vragen beantwoorden uit de documenten die ik heb gekregen.",
  handoff: {
    title: "Wilt u dat een persoon u per e-mail antwoordt?",
    titleRequest: "Wilt u uw verzoek voor een persoon achterlaten?",
    email: "Uw e-mailadres",
    name: "Uw naam (optioneel)",
    nameLabel: "Uw naam",
    message: "Wat wilt u vragen? (optioneel)",
    messageLabel: "Bericht",
    sendMail: "Om een e-mail vragen",
    sendRequest: "Mijn verzoek achterlaten",
    thanks: "Bedankt! Een persoon mailt u op {email}.",
    thanksRequest: "Bedankt! Uw verzoek is doorgegeven aan het team.",
  },
  widget: {
    ask: "Stel een vraag…",
    question: "Uw vraag",
    send: "Versturen",
    helpful: "Nuttig",
    notHelpful: "Niet nuttig",
    wasHelpful: "Nuttig?",
    thanksFeedback: "Bedankt voor uw feedback!",
    thanksReview: "Bedankt — de eigenaar bekijkt dit antwoord.",
    close: "Chat sluiten",
    footer: "De antwoorden komen uit de documenten van deze site.",
    greeting: "Hallo! Vraag me alles over {name}.",
    chatWith: "Chat met {name}",
    sources: "Bronnen:",
    unreachable: "De assistent is niet bereikbaar. Controleer uw verbinding.",
    interrupted: "De verbinding is verbroken. Stel uw vraag opnieuw.",
  },
};

const TABLE: Record<MessageLang, VisitorMessages> = { en, de, fr, es, it, pt, nl };

export const isMessageLang = (s: unknown): s is MessageLang => typeof s === "string" && (MESSAGE_LANGS as readonly string[]).includes(s);

export function visitorMessages(lang: string | null | undefined): VisitorMessages {
  const base = (lang ?? "").trim().toLowerCase().split(/[-_]/)[0];
  return isMessageLang(base) ? TABLE[base] : en;
}

/** The first language of an Accept-Language header that docchat speaks ("de-CH,de;q=0.9,en;q=0.8" → de). */
export function fromAcceptLanguage(header: string | null | undefined): MessageLang | null {
  if (!header) return null;
  const ranked = header
    .split(",")
    .map((part) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = Number(params.find((p) => p.trim().startsWith("q="))?.split("=")[1] ?? 1);
      return { base: tag.trim().toLowerCase().split("-")[0] ?? "", q: Number.isFinite(q) ? q : 0 };
    })
    .filter((x) => x.q > 0)
    .sort((a, b) => b.q - a.q);
  return ranked.map((x) => x.base).find(isMessageLang) ?? null;
}

/** `{name}` placeholders filled in. */
export const fill = (text: string, values: Record<string, string>): string => text.replace(/\{(\w+)\}/g, (m, k: string) => values[k] ?? m);
