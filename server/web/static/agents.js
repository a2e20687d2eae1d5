// The author's page: the upload form sends the chosen file's bytes as the request's body, with
// the form's choices in the query and the page's CSRF token in a header, and shows the server's
// sentence. (Sign-in, retire and sign-out are plain forms and need no script.)

const form = document.getElementById("upload");
const result = document.getElementById("upload-result");

async function upload(event) {
  event.preventDefault();
  const fields = new FormData(form);
  const file = fields.get("file");
  if (!(file instanceof File) || file.name === "") {
    result.textContent = "choose a file (a source file, or a .zip of a folder)";
    return;
  }
  const query = new URLSearchParams({ file: file.name });
  for (const key of ["game", "name", "form", "language", "run"]) {
    const value = fields.get(key);
    if (value) query.set(key, value);
  }
  result.textContent = `uploading ${file.name} (${file.size.toLocaleString()} bytes)…`;
  const response = await fetch(`/agents/upload?${query}`, {
    method: "POST",
    headers: { "X-CSRF-Token": fields.get("csrf"), "Content-Type": "application/octet-stream" },
    body: file,
  });
  const text = await response.text();
  let answer;
  try {
    answer = JSON.parse(text);
  } catch {
    answer = { error: `the server answered ${response.status}: ${text}` };
  }
  if (answer.uploaded) {
    result.className = "";
    result.textContent = answer.uploaded;
    setTimeout(() => window.location.reload(), 1500);
  } else {
    result.className = "error";
    result.textContent = answer.error;
  }
}

if (form) form.addEventListener("submit", upload);
